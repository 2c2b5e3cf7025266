/**
 * Level of detail, so any zoom shows something to read. Zoomed out, op labels vanish (the stylesheet's
 * min-zoomed-font-size) but group names grow to stay about 10 px on screen: a fitted view of a big model still
 * names its blocks. Group names never draw over each other: once the view settles, a label that would cross one
 * ranked higher (expanded groups, then bigger ones) is hidden until there is room for it, as maps drop the names
 * that collide (nested and adjacent groups of real exports drew theirs one over another). A link shows its value's
 * name (and shape, once checked) while the pointer is on it, where permanent labels on thousands of links would be
 * noise.
 */
import type { Core } from "cytoscape";
import type { Listeners } from "./listeners";

const GROUP_FONT = 14; // the stylesheet's size for collapsed groups (node.group.collapsed)
const MAX_GROUP_FONT = 60;

/** Font size of group labels at `zoom`: their normal size, or larger so they stay ~10 px on screen. */
export function groupFont(zoom: number): number {
  return Math.round(Math.min(MAX_GROUP_FONT, Math.max(GROUP_FONT, 10 / Math.max(zoom, 0.01))));
}

/** A group label's box (model coordinates) and its rank: the higher one keeps its label when two collide. */
export interface LabelBox {
  id: string;
  rank: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** The labels to hide so that no two drawn ones intersect (`gap` apart at least): higher ranks first, then top to
 * bottom, left to right; a label is kept when it crosses none kept before it. */
export function crowded(boxes: LabelBox[], gap = 2): Set<string> {
  const kept: LabelBox[] = [];
  const hidden = new Set<string>();
  const order = [...boxes].sort((a, b) => b.rank - a.rank || a.y1 - b.y1 || a.x1 - b.x1);
  for (const b of order) {
    const hit = kept.some((k) => k.x1 < b.x2 + gap && b.x1 < k.x2 + gap && k.y1 < b.y2 + gap && b.y1 < k.y2 + gap);
    if (hit) hidden.add(b.id);
    else kept.push(b);
  }
  return hidden;
}

/** An expanded group's label sits this far below its top edge: inside the top padding, whatever its font. */
export const insideTop = (font: number): number => Math.round(font * 1.3 + 3);

export function installReadability(cy: Core, listeners: Listeners): void {
  let applied = GROUP_FONT;
  let timer = 0;
  let hidden = new Set<string>();
  // A bypass on the group elements only: a stylesheet update would restyle every element (seconds at 20k nodes).
  const apply = (groups: ReturnType<Core["nodes"]>) =>
    groups.forEach((g) => {
      g.style({ "font-size": applied, "min-zoomed-font-size": applied > GROUP_FONT ? 0 : 7,
        "text-margin-y": g.hasClass("expanded") ? insideTop(applied) : 0 });
    });
  const declutter = () => {
    const boxes: LabelBox[] = [];
    cy.nodes(".group").forEach((g) => {
      if (!g.visible()) return;
      const b = g.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false } as never);
      if (b.w > 0 && b.h > 0) boxes.push({ id: g.id(), rank: (g.hasClass("expanded") ? 1e9 : 0) + Number(g.data("count") || 0), x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 });
    });
    const hide = crowded(boxes);
    cy.batch(() => {
      for (const id of hidden) if (!hide.has(id)) cy.getElementById(id).removeStyle("text-opacity");
      for (const id of hide) if (!hidden.has(id)) cy.getElementById(id).style("text-opacity", 0);
    });
    hidden = hide;
  };
  const update = () => {
    const size = groupFont(cy.zoom());
    if (size !== applied) {
      applied = size;
      apply(cy.nodes(".group"));
    }
    declutter();
  };
  const settle = () => {
    clearTimeout(timer);
    timer = window.setTimeout(update, 120); // once the gesture settles: a style update restyles every group
  };
  listeners.cy(cy, "add", "node.group", (event) => {
    apply(event.target);
    settle();
  });
  listeners.cy(cy, "remove", "node", settle);
  listeners.cy(cy, "position", "node", settle); // a new layout, a drag: labels move with their groups
  listeners.cy(cy, "zoom", null, settle);
  listeners.add(() => clearTimeout(timer));
  update();
  listeners.cy(cy, "mouseover", "edge", (event) => event.target.addClass("hover"));
  listeners.cy(cy, "mouseout", "edge", (event) => event.target.removeClass("hover"));
}
