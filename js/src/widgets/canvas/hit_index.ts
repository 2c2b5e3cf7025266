/**
 * A uniform grid over the graph, so cytoscape's hit test looks at the elements near the pointer only.
 *
 * cytoscape answers every mousemove (hover, and during a drag-pan too) by testing every element of the graph:
 * about 50 ms per event at 5,000 nodes here, which made panning stutter (pan/zoom p95 108 ms, 26 ms without it).
 * The renderer's findNearestElements is an instance property that cytoscape itself replaces (its WebGL mode
 * does); ours narrows the z-sorted element list to the grid cells around the pointer and lets cytoscape's own
 * test (shapes, labels, z-order, thresholds) choose among them.
 */
import type { Core, EdgeSingular, NodeSingular, SingularElementArgument } from "cytoscape";

const CELL = 256; // model units per grid cell
const LABEL_PAD = 24; // graph I/O labels sit under their diamond

type Box = { x1: number; y1: number; x2: number; y2: number };
type ZSorted = SingularElementArgument[] & { interactive: SingularElementArgument[] };
type Renderer = {
  findNearestElements: (x: number, y: number, interactiveOnly: boolean, isTouch: boolean) => unknown[];
  getCachedZSortedEles: (forceRecalc?: boolean) => ZSorted;
};

export class HitIndex {
  private cells = new Map<string, SingularElementArgument[]>();
  private where = new Map<SingularElementArgument, string[]>(); // the cells each element is in
  private dirty = true;
  /** Bumped whenever an element is filed anew (a rebuild or a drag): what was read from the grid is stale. */
  version = 0;
  private moved = new Set<NodeSingular>();

  constructor(private readonly cy: Core) {
    // Only drags are listened to: additions, removals and data changes all come through GraphStore, which calls
    // invalidate(); no per-element listener runs while a big graph is created in chunks.
    cy.on("position", "node", this.onMove);
  }

  /** Elements changed: `changed` nodes' boxes only (filed again with their links and groups), or anything. */
  invalidate = (changed?: string[]): void => {
    if (changed && !this.dirty) {
      for (const id of changed) {
        const node = this.cy.getElementById(id);
        if (node.nonempty() && node.isNode()) this.moved.add(node as NodeSingular);
      }
      return;
    }
    this.dirty = true;
    this.moved.clear();
  };

  /** A dragged node: only it and its links are re-filed (a rebuild per mousemove cost 50 ms at 5,000 nodes). */
  private onMove = (event: { target: NodeSingular }): void => {
    if (!this.dirty) this.moved.add(event.target);
  };

  dispose(): void {
    this.cy.off("position", "node", this.onMove);
    this.cells.clear();
    this.where.clear();
  }

  /** Elements whose box overlaps the square of half-side `pad` around (x, y). */
  near(x: number, y: number, pad: number): Set<SingularElementArgument> {
    return this.elementsIn({ x1: x - pad, y1: y - pad, x2: x + pad, y2: y + pad });
  }

  /** The grid cells `box` overlaps, as a key, with the grid brought up to date (its version is current after). */
  cellsKey(box: Box): string {
    this.update();
    return [box.x1, box.y1, box.x2, box.y2].map((v) => Math.floor(v / CELL)).join(",");
  }

  /** Every element (nodes and links) in the grid cells that `box` overlaps: a superset of those in it. */
  elementsIn(box: Box): Set<SingularElementArgument> {
    this.update();
    const found = new Set<SingularElementArgument>();
    for (let cx = Math.floor(box.x1 / CELL); cx <= Math.floor(box.x2 / CELL); cx++) {
      for (let cy = Math.floor(box.y1 / CELL); cy <= Math.floor(box.y2 / CELL); cy++) {
        for (const ele of this.cells.get(`${cx},${cy}`) ?? []) found.add(ele);
      }
    }
    return found;
  }

  /** Nodes in the grid cells that `box` overlaps: a superset of those in it (the overlay culls exactly). */
  nodesIn(box: Box): NodeSingular[] {
    return [...this.elementsIn(box)].filter((ele) => ele.isNode()) as NodeSingular[];
  }

  private update(): void {
    if (this.dirty) {
      this.build();
      return;
    }
    if (!this.moved.size) return;
    const edges = new Set<EdgeSingular>();
    for (const node of this.moved) {
      this.remove(node);
      this.insert(node, nodeBox(node));
      node.connectedEdges().forEach((edge) => { edges.add(edge); });
      // A child moving resizes its expanded groups.
      node.ancestors().forEach((parent) => {
        this.remove(parent);
        this.insert(parent, nodeBox(parent as NodeSingular));
      });
    }
    this.moved.clear();
    this.version++;
    for (const edge of edges) {
      this.remove(edge);
      this.insert(edge, edgeBox(nodeBox(edge.source()), nodeBox(edge.target())));
    }
  }

  private build(): void {
    this.dirty = false;
    this.version++;
    this.moved.clear();
    this.cells.clear();
    this.where.clear();
    const boxes = new Map<string, Box>();
    this.cy.nodes().forEach((node) => {
      const box = nodeBox(node);
      boxes.set(node.id(), box);
      this.insert(node, box);
    });
    this.cy.edges().forEach((edge) => {
      const a = boxes.get(edge.data("source") as string);
      const b = boxes.get(edge.data("target") as string);
      if (a && b) this.insert(edge, edgeBox(a, b));
    });
  }

  private insert(ele: SingularElementArgument, box: Box): void {
    const keys: string[] = [];
    for (let cx = Math.floor(box.x1 / CELL); cx <= Math.floor(box.x2 / CELL); cx++) {
      for (let cy = Math.floor(box.y1 / CELL); cy <= Math.floor(box.y2 / CELL); cy++) {
        const key = `${cx},${cy}`;
        keys.push(key);
        const list = this.cells.get(key);
        if (list) list.push(ele);
        else this.cells.set(key, [ele]);
      }
    }
    this.where.set(ele, keys);
  }

  private remove(ele: SingularElementArgument): void {
    for (const key of this.where.get(ele) ?? []) {
      const list = this.cells.get(key);
      const at = list ? list.indexOf(ele) : -1;
      if (list && at >= 0) list.splice(at, 1);
    }
    this.where.delete(ele);
  }
}

/** Straight links end at terminals inside their nodes: the two node boxes hold the line and its label. */
function edgeBox(a: Box, b: Box): Box {
  return { x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1), x2: Math.max(a.x2, b.x2), y2: Math.max(a.y2, b.y2) };
}

function nodeBox(node: NodeSingular): Box {
  if (node.isParent()) return node.boundingBox({}); // an expanded group: its children and label
  const p = node.position();
  const w = ((node.data("w") as number) || node.width()) / 2 + LABEL_PAD;
  const h = ((node.data("h") as number) || node.height()) / 2 + LABEL_PAD;
  return { x1: p.x - w, y1: p.y - h, x2: p.x + w, y2: p.y + h };
}

type ShapeCheck = (x: number, y: number, padding: number, width: number, height: number, cx: number, cy: number) => boolean;

/**
 * cytoscape's polygon test casts a vertical ray and counts the edges it crosses; on the vertical line through a
 * diamond's top and bottom corners it counts each corner twice (once per edge meeting there) and answers "outside",
 * so a click on an I/O diamond's centre column missed it (measured in Chromium). A diamond is |dx|/hw + |dy|/hh <= 1:
 * test that exactly. Returns the renderer's own test, to put back.
 */
export function exactDiamondHits(r: { nodeShapes?: Record<string, { checkPoint: ShapeCheck }> }): () => void {
  const shape = r.nodeShapes?.diamond;
  if (!shape) return () => undefined;
  const base = shape.checkPoint;
  shape.checkPoint = (x, y, padding, width, height, cx, cy) => {
    const hw = width / 2 + padding;
    const hh = height / 2 + padding;
    return hw > 0 && hh > 0 && Math.abs(x - cx) / hw + Math.abs(y - cy) / hh <= 1;
  };
  return () => {
    shape.checkPoint = base;
  };
}

/** Route cytoscape's hit test through the grid (and diamonds through an exact test); `restore` puts cytoscape's
 * own back. */
export function installHitIndex(cy: Core): { index: HitIndex; restore: () => void } {
  const r = (cy as unknown as { renderer: () => Renderer }).renderer();
  const restoreDiamond = exactDiamondHits(r as unknown as { nodeShapes?: Record<string, { checkPoint: ShapeCheck }> });
  const baseFind = r.findNearestElements;
  const baseSorted = r.getCachedZSortedEles;
  const index = new HitIndex(cy); // the caller wires index.invalidate to its element changes
  r.findNearestElements = function (x, y, interactiveOnly, isTouch) {
    const pad = (isTouch ? 24 : 8) / cy.zoom(); // cytoscape's largest threshold (edges)
    const near = index.near(x, y, pad);
    if (near.size === 0) return [];
    const all = baseSorted.call(r);
    const subset = (interactiveOnly ? all.interactive : all).filter((ele) => near.has(ele)) as ZSorted;
    subset.interactive = subset;
    r.getCachedZSortedEles = () => subset;
    try {
      return baseFind.call(r, x, y, interactiveOnly, isTouch);
    } finally {
      r.getCachedZSortedEles = baseSorted;
    }
  };
  const restore = () => {
    r.findNearestElements = baseFind;
    restoreDiamond();
    index.dispose();
  };
  return { index, restore };
}
