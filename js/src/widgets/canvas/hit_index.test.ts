// The grid-narrowed hit test must find exactly what cytoscape's full scan finds, only faster.
import cytoscape from "cytoscape";
import { beforeEach, describe, expect, it } from "vitest";

import { installCanvasStandIns } from "../../common/testing";
import type { NodeData } from "../../common/protocol";
import { GraphStore } from "./graph";
import { HitIndex, installHitIndex } from "./hit_index";

type Find = (x: number, y: number, interactive: boolean, touch: boolean) => { id: () => string }[];

function graph(): cytoscape.Core {
  const container = document.createElement("div");
  document.body.appendChild(container);
  const elements: cytoscape.ElementDefinition[] = [];
  for (let i = 0; i < 400; i++) {
    elements.push({ group: "nodes", data: { id: `n${i}`, w: 140, h: 48 }, position: { x: (i % 20) * 300, y: Math.floor(i / 20) * 200 } });
    if (i > 0) elements.push({ group: "edges", data: { id: `e${i}`, source: `n${i - 1}`, target: `n${i}` } });
  }
  return cytoscape({
    container, elements, layout: { name: "preset" },
    style: [{ selector: "node", style: { width: "data(w)", height: "data(h)", shape: "round-rectangle" } },
      { selector: "edge", style: { "curve-style": "straight", width: 2 } }] as cytoscape.StylesheetJson,
  });
}

describe("hit index", () => {
  beforeEach(() => installCanvasStandIns());

  it("finds the same elements as cytoscape's full scan, and follows moved nodes", () => {
    const cy = graph();
    const r = (cy as unknown as { renderer: () => { findNearestElements: Find } }).renderer();
    const full = r.findNearestElements.bind(r);
    const probes: [number, number][] = [[0, 0], [300, 0], [150, 0], [3000, 1000], [5, 23], [70, 0], [80, 30], [-500, -500], [4500, 2100]];
    for (let i = 0; i < 60; i++) probes.push([(i * 977) % 6000, (i * 613) % 4000]);
    const expected = probes.map(([x, y]) => full(x, y, true, false).map((e) => e.id()));
    const { index, restore } = installHitIndex(cy);
    const narrowed = probes.map(([x, y]) => r.findNearestElements(x, y, true, false).map((e) => e.id()));
    expect(narrowed).toEqual(expected);
    expect(narrowed[0]).toEqual(["n0"]);
    expect(narrowed[2]).toEqual(["e1"]); // on the link between n0 and n1
    expect(narrowed[7]).toEqual([]);
    cy.getElementById("n5").position({ x: -500, y: -500 }); // moved: the grid is rebuilt on the next query
    expect(r.findNearestElements(-500, -500, true, false).map((e) => e.id())).toEqual(["n5"]);
    expect(r.findNearestElements(1500, 0, true, false).map((e) => e.id())).toEqual([]); // where n5 was
    const again = probes.map(([x, y]) => r.findNearestElements(x, y, true, false).map((e) => e.id()));
    expect(again).toEqual(probes.map(([x, y]) => full(x, y, true, false).map((e) => e.id()))); // links re-filed too
    expect(index.nodesIn({ x1: -600, y1: -600, x2: -400, y2: -400 }).map((n) => n.id())).toEqual(["n5"]);
    // Additions come through GraphStore, which invalidates the grid (no per-element "add" listener).
    cy.add({ group: "nodes", data: { id: "late", w: 140, h: 48 }, position: { x: -2000, y: -2000 } });
    index.invalidate();
    expect(r.findNearestElements(-2000, -2000, true, false).map((e) => e.id())).toEqual(["late"]);
    const inView = index.nodesIn({ x1: 0, y1: 0, x2: 400, y2: 10 }).map((n) => n.id()); // grid cells: a superset
    expect(inView).toEqual(expect.arrayContaining(["n0", "n1", "n2"]));
    expect(inView).not.toContain("n100");
    restore();
    expect(r.findNearestElements(-500, -500, true, false).map((e) => e.id())).toEqual(["n5"]);
    cy.destroy();
  }, 30_000); // a full scan of a few thousand elements: 1-2 s alone, 7 s seen on a loaded 2-core machine
});

describe("I/O diamonds", () => {
  beforeEach(() => installCanvasStandIns());

  it("are hit on their centre column too (cytoscape's ray test counted the corners twice there)", () => {
    const container = document.createElement("div");
    document.body.appendChild(container);
    const cy = cytoscape({
      container, layout: { name: "preset" },
      elements: [{ group: "nodes", data: { id: "in" }, position: { x: 100, y: 100 } }],
      style: [{ selector: "node", style: { width: 72, height: 44, shape: "diamond" } }] as cytoscape.StylesheetJson,
    });
    const r = (cy as unknown as { renderer: () => { findNearestElements: Find } }).renderer();
    const ids = (x: number, y: number) => r.findNearestElements(x, y, true, false).map((e) => e.id());
    expect(ids(100, 100)).toEqual([]); // cytoscape's own test misses the centre: the bug this fixes
    const { restore } = installHitIndex(cy);
    expect(ids(100, 100)).toEqual(["in"]);
    expect(ids(100, 80)).toEqual(["in"]); // near the top corner
    expect(ids(120, 100)).toEqual(["in"]);
    expect(ids(134, 118)).toEqual([]); // in the box, outside the diamond
    restore();
    expect(ids(100, 100)).toEqual([]);
    cy.destroy();
  });
});

describe("hit index kept by the graph store's patches", () => {
  beforeEach(() => installCanvasStandIns());

  const glyph = (id: string, name: string, width = 140): NodeData => ({
    id, name, kind: "op", op_type: "Relu", domain: "", category: "Activation", composite: false, function: null,
    inputs: [], outputs: [], parent: null, collapsed: false, child_count: 0, diagnostic: null, precision: null,
    hidden_constant: false, width, height: 48,
  });

  it("files a renamed or resized glyph again without a rebuild, and rebuilds when elements come or go", () => {
    const container = document.createElement("div");
    document.body.appendChild(container);
    const cy = cytoscape({ container, layout: { name: "preset" }, style: [{ selector: "node", style: { width: "data(w)", height: "data(h)" } }] as cytoscape.StylesheetJson });
    const store = new GraphStore(cy);
    const index = new HitIndex(cy);
    store.onChange = index.invalidate;
    store.snapshot({ nodes: [glyph("a", "a"), glyph("b", "b")], edges: [] }, new Float32Array([0, 0, 1000, 0]));
    const builds = () => (index as unknown as { version: number }).version;
    expect(index.near(0, 0, 1).size).toBe(1);
    const built = builds();
    store.patch([{ op: "update_nodes", nodes: [glyph("a", "renamed")] }], new Float32Array());
    expect([...index.near(0, 0, 1)].map((e) => e.id())).toEqual(["a"]);
    store.patch([{ op: "update_nodes", nodes: [glyph("a", "renamed", 900)] }], new Float32Array()); // wider
    expect([...index.near(430, 0, 1)].map((e) => e.id())).toEqual(["a"]); // its new box is filed
    expect(builds()).toBe(built + 1); // one re-filing of "a", no rebuild of the grid
    const rebuilt = (index as unknown as { build: () => void }).build;
    let rebuilds = 0;
    (index as unknown as { build: () => void }).build = function () {
      rebuilds++;
      rebuilt.call(this);
    };
    store.patch([{ op: "add_nodes", nodes: [glyph("c", "c")] }], new Float32Array([-3000, 0]));
    expect([...index.near(-3000, 0, 1)].map((e) => e.id())).toEqual(["c"]);
    expect(rebuilds).toBe(1);
    index.dispose();
    cy.destroy();
  });
});
