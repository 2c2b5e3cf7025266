// Where a palette's analysis layer dropped on the canvas goes (interactions.ts analysisDrop): the op or graph-input
// node under the drop point, none on empty canvas or on a graph output, and a Mix's second node only when exactly
// one other such node is selected. Quick add (Ctrl+Space) over a node sends the same for an Analysis entry.
import cytoscape from "cytoscape";
import { describe, expect, it } from "vitest";

import type { CanvasContext } from "./context";
import { analysisDrop } from "./interactions";
import { QuickAdd } from "./quickadd";

function context() {
  const cy = cytoscape({
    headless: true,
    styleEnabled: true,
    layout: { name: "preset" },
    style: [{ selector: "node", style: { width: 40, height: 20, shape: "rectangle" } }],
    elements: [
      { data: { id: "x" }, position: { x: 0, y: 0 } }, { data: { id: "a" }, position: { x: 0, y: 100 } },
      { data: { id: "b" }, position: { x: 0, y: 200 } }, { data: { id: "o" }, position: { x: 0, y: 300 } },
    ],
  });
  const nodes = new Map([["x", { kind: "input" }], ["a", { kind: "op" }], ["b", { kind: "op" }], ["o", { kind: "output" }]]);
  return { cy, ctx: { cy, store: { nodes } } as unknown as CanvasContext };
}

describe("analysis layer drop", () => {
  it("names the node under the point and a Mix's one other selected node", () => {
    const { cy, ctx } = context();
    expect(analysisDrop(ctx, { x: 5, y: 102 })).toEqual({ node: "a", other: "" });
    expect(analysisDrop(ctx, { x: 5, y: 2 })).toEqual({ node: "x", other: "" });
    expect(analysisDrop(ctx, { x: 200, y: 100 })).toEqual({ node: "", other: "" });
    expect(analysisDrop(ctx, { x: 0, y: 300 })).toEqual({ node: "", other: "" }); // a graph output reads nothing new
    cy.$id("x").select();
    expect(analysisDrop(ctx, { x: 0, y: 200 })).toEqual({ node: "b", other: "x" });
    cy.$id("a").select();
    expect(analysisDrop(ctx, { x: 0, y: 200 })).toEqual({ node: "b", other: "" }); // two others: which is unclear
  });
});

describe("quick add of an analysis layer", () => {
  it("puts it after the node under the pointer; an operator stays an add_node", () => {
    const { ctx } = context();
    const sent: [string, unknown][] = [];
    const root = document.createElement("div");
    Object.assign(ctx, {
      root, pointer: { x: 3, y: 98 },
      channel: { intent: (action: string, args: unknown) => { sent.push([action, args]); return Promise.resolve(); } },
      ops: [{ name: "Noise", domain: "dld.analysis", category: "Analysis", summary: "" }, { name: "Relu", domain: "", category: "", summary: "" }],
    });
    const quick = new QuickAdd(ctx);
    for (const [query, done] of [["noise", 1], ["relu", 2]] as const) {
      quick.open();
      const input = root.querySelector<HTMLInputElement>(".dld-quickadd-input") as HTMLInputElement;
      input.value = query;
      input.dispatchEvent(new Event("input"));
      input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
      expect(sent.length).toBe(done);
    }
    expect(sent[0]).toEqual(["add_analysis_layer", { kind: "Noise", node: "a", other: "" }]);
    expect(sent[1]).toEqual(["add_node", { op_type: "Relu", domain: "", x: 3, y: 98 }]);
  });
});
