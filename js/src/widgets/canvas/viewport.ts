/**
 * Where the view goes on a focus, beside setup.ts's fitTo (first view, F) and resized (a size change): one viewport
 * policy (issue 26, item 3). Kept apart from setup.ts so the actions and the message table import it without a
 * circle through setup's installers.
 */
import type cytoscape from "cytoscape";
import type { CanvasContext } from "./context";

/** The zoom a focused node is drawn at, at least: its glyph ~40 px tall and its labels readable. */
const FOCUS_ZOOM = 0.8;

/**
 * Focus (a layer double-clicked in the explorer, a report's name link, a link's end): the nodes centred, zoomed in
 * to a readable size when they were drawn smaller, never zoomed out; the same policy for every way to get there.
 */
export function centreOn(ctx: CanvasContext, eles: cytoscape.CollectionArgument, duration = 150): void {
  if (eles.empty()) return;
  ctx.cy.animate({ center: { eles }, zoom: Math.max(ctx.cy.zoom(), FOCUS_ZOOM), duration });
}
