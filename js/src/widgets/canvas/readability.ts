/**
 * Level of detail, so any zoom shows something to read. Zoomed out, op labels vanish (the stylesheet's
 * min-zoomed-font-size) but group names grow to stay about 10 px on screen: a fitted view of a big model still
 * names its blocks. A link shows its value's name (and shape, once checked) while the pointer is on it, where
 * permanent labels on thousands of links would be noise.
 */
import type { Core } from "cytoscape";
import type { Listeners } from "./listeners";

const GROUP_FONT = 14; // the stylesheet's size for collapsed groups (node.group.collapsed)
const MAX_GROUP_FONT = 60;

/** Font size of group labels at `zoom`: their normal size, or larger so they stay ~10 px on screen. */
export function groupFont(zoom: number): number {
  return Math.round(Math.min(MAX_GROUP_FONT, Math.max(GROUP_FONT, 10 / Math.max(zoom, 0.01))));
}

export function installReadability(cy: Core, listeners: Listeners): void {
  let applied = GROUP_FONT;
  let timer = 0;
  // A bypass on the group elements only: a stylesheet update would restyle every element (seconds at 20k nodes).
  const apply = (groups: ReturnType<Core["nodes"]>) =>
    groups.style({ "font-size": applied, "min-zoomed-font-size": applied > GROUP_FONT ? 0 : 7 });
  const update = () => {
    const size = groupFont(cy.zoom());
    if (size === applied) return;
    applied = size;
    apply(cy.nodes(".group"));
  };
  listeners.cy(cy, "add", "node.group", (event) => {
    if (applied !== GROUP_FONT) apply(event.target);
  });
  listeners.cy(cy, "zoom", null, () => {
    clearTimeout(timer);
    timer = window.setTimeout(update, 120); // once the gesture settles: a style update restyles every group
  });
  listeners.add(() => clearTimeout(timer));
  update();
  listeners.cy(cy, "mouseover", "edge", (event) => event.target.addClass("hover"));
  listeners.cy(cy, "mouseout", "edge", (event) => event.target.removeClass("hover"));
}
