// Mounts the canvas in jsdom, feeds it a snapshot and a patch, unmounts it, and checks every listener is gone.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel as TestModel, installCanvasStandIns, installListenerCensus, ListenerCensus } from "../../common/testing";
import widget from "./index";
import type { GraphSnapshot, NodeData } from "../../common/protocol";


class FakeModel extends TestModel {
  state: Record<string, unknown> = { selection: [], color_scheme: "default", show_grid: true, height: "400px", title: "t" };
}

function node(id: string, kind: NodeData["kind"] = "op"): NodeData {
  return {
    id, name: id, kind, op_type: "Relu", domain: "", category: "Activation", composite: false, function: null,
    inputs: [{ index: 0, name: "X", optional: false, variadic: false, state: "linked", value: "a" }],
    outputs: [{ index: 0, name: "Y", optional: false, variadic: false, state: "free", value: "b" }],
    parent: null, collapsed: false, child_count: 0, diagnostic: "error", precision: "fp16", hidden_constant: false,
    width: 140, height: 48,
  };
}



describe("canvas widget lifecycle", () => {
  let census: ListenerCensus;
  beforeEach(() => {
    census = installListenerCensus();
    installCanvasStandIns();
  });
  afterEach(() => vi.restoreAllMocks());

  it("removes every DOM and model listener on cleanup", async () => {
    const model = new FakeModel();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const before = census.total();
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(model.sent).toContainEqual(expect.objectContaining({ kind: "hello", view: expect.any(String) }));
    const graph: GraphSnapshot = {
      nodes: [node("n0"), node("n1"), node("i0", "input")],
      edges: [{ id: "n0:0->n1:0", source: "n0", source_index: 0, target: "n1", target_index: 0, value: "a", label: "1x3" }],
    };
    const positions = new Float32Array([0, 0, 0, 100, 0, -100]);
    model.emit("msg:custom", { kind: "snapshot", version: 1, graph, title: "t" }, [new DataView(positions.buffer)]);
    await new Promise((r) => setTimeout(r, 10));
    const cy = (el.querySelector(".dld-stage") as unknown as { _cyreg: { cy: { nodes: () => { length: number } } } })._cyreg.cy;
    expect(model.sent.filter((m) => (m as { kind: string }).kind === "js_error")).toEqual([]);
    expect(cy.nodes().length).toBe(3);
    const moved = new Float32Array([5, 5]);
    model.emit("msg:custom", { kind: "patch", version: 2, ops: [{ op: "move", ids: ["n0"] }] }, [new DataView(moved.buffer)]);
    const position = (id: string) =>
      (cy as unknown as { getElementById: (i: string) => { position: () => { x: number; y: number } } }).getElementById(id).position();
    expect(position("n0")).toEqual({ x: 5, y: 5 });
    // Patches carried by a reply are applied (each with its own buffer) before the reply settles.
    const again = new Float32Array([7, 8]);
    model.emit("msg:custom", {
      kind: "reply", request: 1, ok: true, error: null, data: null,
      patches: [{ kind: "patch", version: 3, ops: [{ op: "move", ids: ["n1"] }] }],
    }, [new DataView(again.buffer)]);
    await new Promise((r) => setTimeout(r, 0));
    expect(position("n1")).toEqual({ x: 7, y: 8 });
    expect((el.querySelector(".dld-canvas") as HTMLElement).dataset.version).toBe("3");
    expect(model.count()).toBeGreaterThan(0);
    expect(census.total()).toBeGreaterThan(before);
    cleanup();
    expect(model.count()).toBe(0);
    expect(census.leftovers()).toEqual([]);
    expect(census.total()).toBe(before);
    expect(el.children.length).toBe(0);
  });
});
