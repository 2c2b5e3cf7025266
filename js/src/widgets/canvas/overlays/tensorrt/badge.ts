/**
 * Clicking a layer's TensorRT precision badge opens its quick menu (seed 000: "Clicking this badge shows a quick
 * menu of options to change or remove the constraint"). The badge itself is painted by the overlay
 * (terminals.ts drawBadges, bottom-left of the glyph); this module only hit-tests it, so the glyph style is
 * untouched. The geometry below mirrors that drawing: keep them together when either changes.
 */
import type { NodeData } from "../../../../common/protocol";
import type { CanvasContext } from "../../context";
import { openPrecisionQuickMenu } from "./precision";

const FONT = "9px sans-serif";
const SLOP = 3; // model units of tolerance around the badge
const OVERLAY_MIN_ZOOM = 0.3; // the overlay draws no badge below this zoom

let measure: CanvasRenderingContext2D | null = null;

/** The badge's box in model coordinates, for a node centred at (cx, cy). */
export function precisionBadgeBox(n: NodeData, cx: number, cy: number): { x1: number; y1: number; x2: number; y2: number } | null {
  if (!n.precision) return null;
  measure = measure ?? document.createElement("canvas").getContext("2d");
  let width = n.precision.length * 5 + 6;
  if (measure) {
    measure.font = FONT;
    width = measure.measureText(n.precision).width + 6;
  }
  const x = cx - n.width / 2 + 3;
  const y = cy + n.height / 2 - 12;
  return { x1: x, y1: y - 5, x2: x + width, y2: y + 5 };
}

export function installPrecisionBadges(ctx: CanvasContext): void {
  ctx.listeners.cy(ctx.cy, "tap", "node", (event) => {
    const node = event.target;
    const data = ctx.store.nodes.get(node.id());
    if (!data || data.kind !== "op" || ctx.cy.zoom() < OVERLAY_MIN_ZOOM) return;
    const p = node.position();
    const box = precisionBadgeBox(data, p.x, p.y);
    const at = event.position;
    if (!box || at.x < box.x1 - SLOP || at.x > box.x2 + SLOP || at.y < box.y1 - SLOP || at.y > box.y2 + SLOP) return;
    openPrecisionQuickMenu(ctx, data.id, event.renderedPosition ?? { x: 0, y: 0 });
  });
  const closeQuick = (event: MouseEvent) => {
    const menu = ctx.root.querySelector(".dld-trt-quick");
    if (menu && !menu.contains(event.target as Node)) menu.remove();
  };
  ctx.listeners.dom(ctx.root, "mousedown", closeQuick as (event: never) => void, { capture: true });
}
