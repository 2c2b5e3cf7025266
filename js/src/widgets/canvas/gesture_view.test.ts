// A big graph's gesture frames move the last picture (a CSS transform of the node layer) and draw nothing; the full
// picture comes back in place once the gesture rests; node drags and renders to another context are left alone.
import cytoscape from "cytoscape";
import { beforeEach, describe, expect, it } from "vitest";

import { installCanvasStandIns } from "../../common/testing";
import { GestureView, gestureTransform } from "./gesture_view";
import { sizedContainer } from "./test_container";

type Renderer = {
  render(options?: object): void;
  renderTo(context: unknown, zoom: number, pan: { x: number; y: number }, ratio: number): void;
  drawLayeredElements(...args: unknown[]): void; // the node layer, links and labels included
  drawCachedNodes(...args: unknown[]): void; // the node layer without links (a texture, a frame that hides them)
  redrawHint(layer: string, dirty: boolean): void;
  hoverData: { dragging?: boolean; draggingEles?: boolean };
  textureCache?: unknown;
  NODE: number;
  data: { wheelZooming?: boolean; canvases: HTMLCanvasElement[] };
};

/** A row of 40 nodes in a 800 × 600 container, drawn with a texture while the view moves (a big graph's options);
 * `drawn` counts the draws of element layers. */
function graph(): { cy: cytoscape.Core; r: Renderer; drawn: () => number } {
  const container = sizedContainer();
  const elements: cytoscape.ElementDefinition[] = [];
  for (let i = 0; i < 40; i++) elements.push({ group: "nodes", data: { id: `n${i}` }, position: { x: i * 60, y: 100 } });
  const cy = cytoscape({ container, elements, layout: { name: "preset" }, textureOnViewport: true });
  cy.resize();
  cy.viewport({ zoom: 1, pan: { x: 0, y: 0 } });
  const r = (cy as unknown as { renderer(): Renderer }).renderer();
  let count = 0;
  for (const name of ["drawLayeredElements", "drawCachedNodes"] as const) {
    const base = r[name];
    r[name] = (...args: unknown[]) => {
      count++;
      base.apply(r, args);
    };
  }
  return { cy, r, drawn: () => count };
}

const layers = (r: Renderer) => r.data.canvases.map((c) => [c.style.transform, c.style.visibility]);

describe("gesture view", () => {
  beforeEach(() => installCanvasStandIns());

  it("maps the picture drawn at one view onto another (screen = model × zoom + pan)", () => {
    expect(gestureTransform({ zoom: 1, x: 0, y: 0 }, { zoom: 1, x: 30, y: -10 })).toBe("translate(30px, -10px) scale(1)");
    // Drawn at zoom 0.5, pan (100, 50); now zoom 1, pan (20, 40): model (10, 10) was at (105, 55), is now at (30, 50).
    const t = gestureTransform({ zoom: 0.5, x: 100, y: 50 }, { zoom: 1, x: 20, y: 40 });
    expect(t).toBe("translate(-180px, -60px) scale(2)");
    expect([105 * 2 - 180, 55 * 2 - 60]).toEqual([30, 50]);
  });

  it("moves the last picture during a pan and a wheel zoom, then draws the full picture in place", () => {
    const { cy, r, drawn } = graph();
    const view = new GestureView(cy);
    r.redrawHint("eles", true);
    r.render();
    const first = drawn();
    expect(first).toBeGreaterThan(0);

    r.hoverData.dragging = true; // a drag of the background
    cy.panBy({ x: 30, y: -10 });
    r.render();
    expect(layers(r)[r.NODE]).toEqual(["translate(30px, -10px) scale(1)", ""]);
    expect(layers(r).filter((_, i) => i !== r.NODE)).toEqual([["", "hidden"], ["", "hidden"]]);
    expect(drawn()).toBe(first); // nothing drawn, no texture made
    expect(r.textureCache).toBeFalsy();
    r.hoverData.dragging = false;

    r.data.wheelZooming = true; // the wheel, before the pan's end was drawn: still the first picture, moved
    cy.zoom({ level: 2, renderedPosition: { x: 0, y: 0 } });
    r.render();
    expect(layers(r)[r.NODE][0]).toBe("translate(60px, -20px) scale(2)");
    expect(view.moved).toBe(2);
    expect(drawn()).toBe(first);

    r.data.wheelZooming = false; // rested: layers in place and shown, the node layer drawn for the view of now
    r.render();
    expect(layers(r)).toEqual([["", ""], ["", ""], ["", ""]]);
    expect(drawn()).toBeGreaterThan(first);
    cy.destroy();
  });

  it("leaves node drags, exports and graphs drawn without a texture to cytoscape", () => {
    const { cy, r, drawn } = graph();
    const view = new GestureView(cy);
    r.render();
    r.data.wheelZooming = true;
    r.hoverData.draggingEles = true; // a node dragged while the wheel turns: cytoscape's texture frame
    cy.zoom(1.5);
    r.render();
    expect(r.textureCache).toBeTruthy();
    expect(layers(r)[r.NODE][0]).toBe("");
    r.hoverData.draggingEles = false;

    const before = drawn();
    r.renderTo(document.createElement("canvas").getContext("2d"), 1, { x: 0, y: 0 }, 1); // an export mid-gesture
    expect(drawn()).toBeGreaterThan(before);
    expect(view.moved).toBe(0);

    view.restore();
    cy.zoom(1.2);
    r.render(); // no longer wrapped: cytoscape's own texture frame
    expect(view.moved).toBe(0);
    expect(layers(r)[r.NODE][0]).toBe("");
    cy.destroy();
  });
});
