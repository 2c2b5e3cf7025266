// The first render draws the elements straight onto the canvas; cytoscape's layered textures come lazily after it.
import cytoscape from "cytoscape";
import { beforeEach, describe, expect, it } from "vitest";

import { installCanvasStandIns } from "../../common/testing";
import { lazyFirstLayers } from "./first_paint";
import { sizedContainer } from "./test_container";

type Ele = cytoscape.SingularElementArgument;
interface Layers {
  layersByLevel: Record<number, unknown[]>;
  drawEleInLayer(layer: unknown, ele: Ele, lvl: number, pxRatio: number): void;
  dequeue(pxRatio: number): unknown[];
}
interface Renderer {
  render(options?: object): void;
  redrawHint(layer: string, dirty: boolean): void;
  drawCachedElements(context: unknown, eles: Ele[], ...rest: unknown[]): void;
  getPixelRatio(): number;
  data: { lyrTxrCache: Layers };
}

/** A chain of 30 labelled nodes, all in view of a 800 × 600 container. */
function graph(): cytoscape.Core {
  const elements: cytoscape.ElementDefinition[] = [];
  for (let i = 0; i < 30; i++) {
    const position = { x: (i % 5) * 150, y: Math.floor(i / 5) * 90 };
    elements.push({ group: "nodes", data: { id: `n${i}`, label: `node ${i}` }, position });
    if (i > 0) elements.push({ group: "edges", data: { id: `e${i}`, source: `n${i - 1}`, target: `n${i}` } });
  }
  const cy = cytoscape({
    container: sizedContainer(), elements, layout: { name: "preset" },
    style: [{ selector: "node", style: { width: 120, height: 40, label: "data(label)" } },
      { selector: "edge", style: { "curve-style": "straight", width: 2 } }] as cytoscape.StylesheetJson,
  });
  cy.resize();
  cy.fit();
  return cy;
}

/** One full render of `cy`: the elements drawn into layers and those drawn on the node canvas itself. */
function firstRender(cy: cytoscape.Core): { inLayers: number; onCanvas: number } {
  const r = (cy as unknown as { renderer(): Renderer }).renderer();
  const counts = { inLayers: 0, onCanvas: 0 };
  const cache = r.data.lyrTxrCache;
  const baseLayer = cache.drawEleInLayer;
  cache.drawEleInLayer = function (...args) {
    counts.inLayers++;
    baseLayer.apply(cache, args);
  };
  const baseDraw = r.drawCachedElements; // cytoscape's way without layers: each element's textures on the canvas
  r.drawCachedElements = function (context, eles, ...rest) {
    counts.onCanvas += eles.length;
    baseDraw.call(r, context, eles, ...rest);
  };
  r.redrawHint("eles", true);
  r.render();
  return counts;
}

describe("first paint", () => {
  beforeEach(() => installCanvasStandIns());

  it("draws cytoscape's first picture without building its layered textures, and builds them later", () => {
    const count = 59;
    // cytoscape as it comes: its first render draws every element into its layers before the picture.
    const plain = graph();
    expect(firstRender(plain)).toEqual({ inLayers: count, onCanvas: 0 });
    plain.destroy();

    const cy = graph();
    lazyFirstLayers(cy);
    expect(firstRender(cy)).toEqual({ inLayers: 0, onCanvas: count });
    // The layers were queued: the renderer's dequeue (a little per frame once the canvas is up) fills them.
    const r = (cy as unknown as { renderer(): Renderer }).renderer();
    const cache = r.data.lyrTxrCache;
    let filled = 0;
    const base = cache.drawEleInLayer;
    cache.drawEleInLayer = function (...args) {
      filled++;
      base.apply(cache, args);
    };
    while (cache.dequeue(r.getPixelRatio()).length) { /* every queued layer */ }
    expect(filled).toBe(count);
    expect(Object.values(cache.layersByLevel).flat().length).toBeGreaterThan(0);
    cy.destroy();
  });
});
