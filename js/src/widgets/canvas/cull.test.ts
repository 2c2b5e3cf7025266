// Culling must draw exactly what cytoscape's full redraw draws, from fewer elements, and never cull an export.
import cytoscape from "cytoscape";
import { beforeEach, describe, expect, it } from "vitest";

import { installCanvasStandIns } from "../../common/testing";
import { Culling, cullSorted } from "./cull";
import { HitIndex } from "./hit_index";
import { sizedContainer } from "./test_container";

type Ele = cytoscape.SingularElementArgument;
type Sorted = Ele[] & { nondrag: Ele[]; drag: Ele[]; interactive: Ele[] };
type Renderer = {
  render(options?: object): void;
  drawElementUnderlay(context: unknown, ele: Ele): void;
  redrawHint(layer: string, dirty: boolean): void;
  getCachedZSortedEles(): Sorted;
};

/** A 20 × 40 grid of nodes in a 800 × 600 container (sized: jsdom lays nothing out). */
function graph(): cytoscape.Core {
  const container = sizedContainer();
  const elements: cytoscape.ElementDefinition[] = [];
  for (let i = 0; i < 800; i++) {
    elements.push({ group: "nodes", data: { id: `n${i}`, label: `node ${i}`, w: 140, h: 48 }, position: { x: (i % 20) * 300, y: Math.floor(i / 20) * 200 } });
    if (i > 0) elements.push({ group: "edges", data: { id: `e${i}`, source: `n${i - 1}`, target: `n${i}` } });
  }
  const cy = cytoscape({
    container, elements, layout: { name: "preset" },
    style: [{ selector: "node", style: { width: "data(w)", height: "data(h)", label: "data(label)" } },
      { selector: "edge", style: { "curve-style": "straight", width: 2 } }] as cytoscape.StylesheetJson,
  });
  cy.resize();
  return cy;
}

/** The ids of the elements one full redraw drew (cytoscape draws an element's underlay first, only when in view). */
function drawn(cy: cytoscape.Core, options?: object): string[] {
  const r = (cy as unknown as { renderer(): Renderer }).renderer();
  const ids: string[] = [];
  const base = r.drawElementUnderlay;
  r.drawElementUnderlay = (context, ele) => {
    ids.push(ele.id());
    base.call(r, context, ele);
  };
  r.redrawHint("eles", true);
  r.render(options);
  r.drawElementUnderlay = base;
  return ids;
}

describe("viewport culling", () => {
  beforeEach(() => installCanvasStandIns());

  it("keeps cytoscape's z order and its dragged / not dragged split", () => {
    const cy = graph();
    const all = (cy as unknown as { renderer(): Renderer }).renderer().getCachedZSortedEles();
    const near = new Set<Ele>([all[5], all[2], all[900], all[1]]);
    const view = cullSorted(all, near)!;
    expect(view.map((e) => e.id())).toEqual([all[1], all[2], all[5], all[900]].map((e) => e.id()));
    expect(view.nondrag.length + view.drag.length).toBe(4);
    expect(cullSorted(all, new Set(all))).toBeNull(); // the whole graph near: nothing to cull
    cy.destroy();
  });

  it("draws the same elements as the full redraw, visiting a few, and leaves exports and small graphs alone", () => {
    const cy = graph();
    cy.viewport({ zoom: 1, pan: { x: -2900, y: -1900 } }); // a view in the middle of the grid
    // The full redraw without layered textures (a graph of thousands of nodes never fits them): every element is
    // visited and those in view drawn.
    const layers = (cy as unknown as { renderer(): { data: { lyrTxrCache: { getLayers(): unknown } } } }).renderer().data.lyrTxrCache;
    const baseLayers = layers.getLayers;
    layers.getLayers = () => null;
    const full = drawn(cy);
    layers.getLayers = baseLayers;
    expect(full.length).toBeGreaterThan(4);
    expect(full.length).toBeLessThan(100);
    const r = (cy as unknown as { renderer(): Renderer }).renderer();
    const visited: number[] = [];
    const baseSorted = r.getCachedZSortedEles;
    const index = new HitIndex(cy);
    let large = true;
    const culling = new Culling(cy, index, () => large);
    r.getCachedZSortedEles = function () {
      const eles = baseSorted.call(r);
      visited.push(eles.length);
      return eles;
    };
    const culled = drawn(cy);
    r.getCachedZSortedEles = baseSorted;
    expect(culled).toEqual(full);
    expect(culling.culled).toBe(1);
    expect(visited).toEqual([cy.elements().length]); // read once, to pick the few around the view
    // An export draws at its own zoom and pan: never culled; nor a small graph.
    drawn(cy, { forcedZoom: 0.1, forcedPan: { x: 0, y: 0 }, forcedContext: document.createElement("canvas").getContext("2d"), drawAllLayers: true });
    large = false;
    drawn(cy);
    expect(culling.culled).toBe(1);
    // Zoomed out to the whole graph: drawn as before (cytoscape's layered textures may serve it).
    large = true;
    cy.fit();
    drawn(cy);
    expect(culling.culled).toBe(1);
    culling.restore();
    index.dispose();
    cy.destroy();
  });
});
