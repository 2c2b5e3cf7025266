/** The TensorRT dialogs opened by the kernel: the layer explorer's menu asks the bound designer's canvas to show
 * them (one dialog implementation for both entry points). */
import type { NodeSingular } from "cytoscape";
import type { CanvasContext } from "./context";
import { openPrecisionDialog } from "./trt_precision";
import { openProfileDialog } from "./trt_profile";

export function openTrtDialog(ctx: CanvasContext, dialog: "precision" | "profile", nodes: string[]): void {
  if (dialog === "precision") openPrecisionDialog(ctx, nodes);
  else void openProfileDialog(ctx, nodes.find((id) => ctx.store.nodes.get(id)?.kind === "input") ?? null);
}

/**
 * The graph input or output diamond under a model point, or null. cytoscape's polygon hit test misses the I/O
 * diamonds (measured in Chromium: no hit even at a diamond's centre, op glyphs hit), so the context menu looks
 * for one itself before treating a right-click as one on the background.
 */
export function ioNodeAt(ctx: CanvasContext, at: { x: number; y: number }): NodeSingular | null {
  const near = ctx.overlay.hits ? ctx.overlay.hits.nodesIn({ x1: at.x, y1: at.y, x2: at.x, y2: at.y }) : ctx.cy.nodes().toArray();
  for (const node of near as NodeSingular[]) {
    const kind = ctx.store.nodes.get(node.id())?.kind;
    if (kind !== "input" && kind !== "output") continue;
    const p = node.position();
    const dx = Math.abs(at.x - p.x) / (node.width() / 2);
    const dy = Math.abs(at.y - p.y) / (node.height() / 2);
    if (dx + dy <= 1) return node;
  }
  return null;
}
