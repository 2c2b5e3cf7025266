/**
 * Viewport culling for big graphs (issue 42: pan/zoom frames at 5,000 expanded nodes, p95 49 ms).
 *
 * cytoscape's canvas renderer visits every element on each full redraw: it reads each one's bounding box (a hash of
 * its position per call) to skip those outside the view, and before that sums the bounding box of the whole graph to
 * see whether its layered textures would fit (for a graph thousands of nodes tall they never do): ~30 ms a redraw at
 * 5,000 nodes with 15 of them in view. Full redraws come at the end of every gesture (the full picture back; a
 * drag of nodes also makes cytoscape's texture at its start), on hover, selection and every patch. Here a redraw of a big graph gets only the elements
 * the hit index (hit_index.ts) files in the grid cells around the view, in cytoscape's z order (a superset: the
 * renderer's own test still culls exactly, so the picture is the same), and the layered textures are skipped while
 * part of the graph lies out of view; a view that holds the whole graph is drawn as before. Renders at another zoom
 * or pan (cy.png, exports) are never culled.
 */
import type { Core, SingularElementArgument } from "cytoscape";
import type { HitIndex } from "./hit_index";

/** Screen pixels kept around the view: a zoomed-out group's name (readability.ts) reaches past its glyph. */
export const CULL_MARGIN = 200;

type Ele = SingularElementArgument;
type ZSorted = Ele[] & { nondrag: Ele[]; drag: Ele[]; interactive: Ele[] };
type RenderOptions = { forcedZoom?: number; forcedPan?: unknown; drawAllLayers?: boolean } | undefined;
interface CullRenderer {
  render(options?: RenderOptions): void;
  getCachedZSortedEles(forceRecalc?: boolean): ZSorted;
  data: { lyrTxrCache?: { getLayers(...args: unknown[]): unknown } };
}

/**
 * The elements of `all` (cytoscape's z-sorted list) that are in `near`, in the same order, split as cytoscape splits
 * them (dragged or not); null when every element is near (nothing to cull).
 */
export function cullSorted(all: ZSorted, near: Set<Ele>): ZSorted | null {
  if (near.size >= all.length) return null;
  const keep = (ele: Ele) => near.has(ele);
  const view = all.filter(keep) as ZSorted;
  view.nondrag = all.nondrag.filter(keep);
  view.drag = all.drag.filter(keep);
  view.interactive = all.interactive.filter(keep);
  return view;
}

export class Culling {
  /** Tests compare a culled picture with the whole graph's. */
  enabled = true;
  /** Full redraws culled so far (tests: the path was taken). */
  culled = 0;
  private readonly r: CullRenderer;
  private readonly baseRender: CullRenderer["render"];
  private last: { all: ZSorted | null; nondrag: Ele[] | null; key: string; view: ZSorted | null } = { all: null, nondrag: null, key: "", view: null };

  /** `large`: whether the graph is big enough to cull (and fully created: not while it is still loading). */
  constructor(private readonly cy: Core, private readonly index: HitIndex, private readonly large: () => boolean) {
    this.r = (cy as unknown as { renderer(): CullRenderer }).renderer();
    this.baseRender = this.r.render;
    this.r.render = (options) => this.render(options);
  }

  restore(): void {
    this.r.render = this.baseRender;
  }

  private render(options: RenderOptions): void {
    const r = this.r;
    const own = !options || (options.forcedZoom === undefined && options.forcedPan === undefined && !options.drawAllLayers);
    const view = own && this.enabled && this.large() ? this.view() : null;
    if (!view) {
      this.baseRender.call(r, options);
      return;
    }
    this.culled++;
    const base = r.getCachedZSortedEles;
    const layers = r.data.lyrTxrCache;
    r.getCachedZSortedEles = () => view;
    if (layers) layers.getLayers = () => null; // an own property over the prototype's, deleted below
    try {
      this.baseRender.call(r, options);
    } finally {
      r.getCachedZSortedEles = base;
      if (layers) delete (layers as { getLayers?: unknown }).getLayers;
    }
  }

  /** The z-sorted elements around the view, or null when the view holds them all. Kept while the grid cells around
   * the view, the grid and cytoscape's z-sorted list stay the same (a texture frame of a gesture, a hover). */
  private view(): ZSorted | null {
    const ext = this.cy.extent();
    const m = CULL_MARGIN / this.cy.zoom();
    const box = { x1: ext.x1 - m, y1: ext.y1 - m, x2: ext.x2 + m, y2: ext.y2 + m };
    const all = this.r.getCachedZSortedEles();
    const cells = this.index.cellsKey(box); // first: it brings the grid (and its version) up to date
    const key = `${cells} ${this.index.version}`;
    if (all !== this.last.all || all.nondrag !== this.last.nondrag || key !== this.last.key) {
      this.last = { all, nondrag: all.nondrag, key, view: cullSorted(all, this.index.elementsIn(box)) };
    }
    return this.last.view;
  }
}
