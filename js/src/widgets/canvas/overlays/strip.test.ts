// The overlay strip (strip.ts) on a mounted canvas: the kernel's strip decides which colour overlay paints (heat
// and diff both hold a state, only the owner's colours and legend are on the canvas), a switch of owner leaves no
// colour of the other one, and the chips' buttons ask the kernel.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel, installCanvasStandIns, installListenerCensus } from "../../../common/testing";
import type { GraphSnapshot, NodeData } from "../../../common/protocol";
import widget from "../index";
import { drawnOf, type StripSetMessage } from "./strip";

const strip = (owner: string | null, hidden: string[] = []): StripSetMessage => ({
  kind: "overlay", overlay: "strip", action: "set", owner, note: "",
  entries: ["heat", "diff", "analysis"].map((name) => ({ name, label: name, visible: !hidden.includes(name), paints: name !== "analysis" })),
});

function node(id: string): NodeData {
  return {
    id, name: id, kind: "op", op_type: "Relu", domain: "", category: "Activation", composite: false, function: null,
    inputs: [], outputs: [], parent: null, collapsed: false, child_count: 0, diagnostic: null, precision: null,
    hidden_constant: false, width: 140, height: 48,
  } as unknown as NodeData;
}

describe("drawnOf", () => {
  it("draws the visible owner and visible non-painters; no strip yet: everything", () => {
    expect(drawnOf(strip("diff"), "diff", true)).toBe(true);
    expect(drawnOf(strip("diff"), "heat", true)).toBe(false);
    expect(drawnOf(strip("diff"), "analysis", false)).toBe(true);
    expect(drawnOf(strip("diff", ["analysis"]), "analysis", false)).toBe(false);
    expect(drawnOf(strip("diff"), "divergence", true)).toBe(false); // not listed: nothing to draw
    expect(drawnOf(null, "heat", true)).toBe(true);
  });
});

describe("overlay strip on a mounted canvas", () => {
  beforeEach(() => installCanvasStandIns());
  afterEach(() => vi.restoreAllMocks());

  it("paints the owner's colours only and asks the kernel from its chips", async () => {
    const model = new FakeModel();
    model.state = { selection: [], color_scheme: "default", show_grid: false, height: "400px", title: "t" };
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    const graph: GraphSnapshot = { nodes: [node("n0"), node("n1")], edges: [] };
    model.emit("msg:custom", { kind: "snapshot", version: 1, graph, title: "t" }, [new DataView(new Float32Array([0, 0, 0, 100]).buffer)]);
    await new Promise((r) => setTimeout(r, 10));
    const values = new Float64Array([0.5, 2, 10, 90, 1, 1, 0.5, 100, NaN, NaN, 2, 100, NaN, NaN]);
    model.emit("msg:custom", strip("heat"), []);
    model.emit("msg:custom", {
      kind: "overlay", overlay: "heat", action: "set", metric: "time", units: { time: "ms", share: "%" },
      source: "m.dld-report.json", count: 2, ids: "n0\x1fn1", layers: "0\x1f1", reasons: "\x1f",
      reason_texts: [], layer_count: 2, layer_names: "a\x1fb",
    }, [new DataView(values.buffer.slice(0, 8 * 6 + 8 * 8))]);
    const root = el.querySelector(".dld-canvas") as HTMLElement;
    const cy = (el.querySelector(".dld-stage") as unknown as { _cyreg: { cy: import("cytoscape").Core } })._cyreg.cy;
    expect(cy.nodes(".heat").length).toBe(2);
    model.emit("msg:custom", strip("diff"), []);
    model.emit("msg:custom", {
      kind: "overlay", overlay: "diff", action: "set", source: "old.onnx", headline: "1 added", marks: { n0: "added" },
      details: {}, order: ["n0"], groups: {}, removed: [], removed_count: 0, other: [], renamed: 0,
    }, []);
    expect(cy.nodes(".heat, .heat-none").length).toBe(0); // the heat keeps its data, paints nothing
    expect(cy.getElementById("n0").hasClass("cmp")).toBe(true);
    expect(root.querySelector(".dld-heat-legend")).toBeNull();
    expect(root.querySelector(".dld-diff-legend")).not.toBeNull();
    expect(root.dataset.overlayOwner).toBe("diff");
    // Picked back: the heat's colours, no diff colour or legend left.
    model.emit("msg:custom", strip("heat"), []);
    expect(cy.nodes(".cmp").length).toBe(0);
    expect(cy.nodes(".heat").length).toBe(2);
    expect(root.querySelector(".dld-diff-legend")).toBeNull();
    expect(root.querySelector(".dld-heat-legend")).not.toBeNull();
    // The chips: one per overlay, the owner marked; the buttons ask the kernel.
    const chips = [...root.querySelectorAll<HTMLElement>(".dld-overlay-strip .dld-ov-chip")];
    expect(chips.map((c) => c.dataset.overlay)).toEqual(["heat", "diff", "analysis"]);
    expect(chips.map((c) => c.classList.contains("owner"))).toEqual([true, false, false]);
    (chips[1].querySelector(".dld-ov-clear") as HTMLButtonElement).click();
    (chips[0].querySelector(".dld-ov-eye") as HTMLButtonElement).click();
    (chips[1].querySelector(".dld-ov-name") as HTMLButtonElement).click();
    const asked = model.sent.filter((m) => (m as { overlay?: string }).overlay === "strip");
    expect(asked).toEqual([ // in the envelope: each one numbered, so the kernel's reply settles it
      expect.objectContaining({ kind: "overlay", overlay: "strip", action: "clear", name: "diff", request: expect.any(Number) }),
      expect.objectContaining({ kind: "overlay", overlay: "strip", action: "hide", name: "heat", request: expect.any(Number) }),
      expect.objectContaining({ kind: "overlay", overlay: "strip", action: "pick", name: "diff", request: expect.any(Number) }),
    ]);
    // Everything hidden: no colour at all; an empty strip goes away.
    model.emit("msg:custom", strip(null, ["heat", "diff"]), []);
    expect(cy.nodes(".cmp, .heat").length).toBe(0);
    model.emit("msg:custom", { kind: "overlay", overlay: "strip", action: "set", entries: [], owner: null, note: "" }, []);
    expect(root.querySelector(".dld-overlay-strip")).toBeNull();
    expect(model.sent.filter((m) => (m as { kind: string }).kind === "js_error")).toEqual([]);
    cleanup();
  });

  it("says no node has a time instead of a 0 … 0 scale when nothing drawn is in the report", async () => {
    const model = new FakeModel();
    model.state = { selection: [], color_scheme: "default", show_grid: false, height: "400px", title: "t" };
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    const graph: GraphSnapshot = { nodes: [node("n0")], edges: [] };
    model.emit("msg:custom", { kind: "snapshot", version: 1, graph, title: "t" }, [new DataView(new Float32Array([0, 0]).buffer)]);
    await new Promise((r) => setTimeout(r, 10));
    const values = new Float64Array([0.5, 100, 1, 0.5, 100, NaN, NaN]); // one element "old", not on this canvas
    model.emit("msg:custom", { ...strip("heat"), entries: [{ name: "heat", label: "Heat", visible: true, paints: true }] }, []);
    model.emit("msg:custom", {
      kind: "overlay", overlay: "heat", action: "set", metric: "time", units: { time: "ms", share: "%" },
      source: "other.dld-report.json", count: 1, ids: "old", layers: "0", reasons: "", reason_texts: [],
      layer_count: 1, layer_names: "a",
    }, [new DataView(values.buffer)]);
    const legend = el.querySelector(".dld-heat-legend") as HTMLElement;
    expect(legend.querySelector(".dld-heat-empty")?.textContent).toBe("No node on the canvas has a time in this report");
    expect(legend.querySelector(".dld-heat-min")).toBeNull();
    expect(legend.textContent).not.toContain("0.0 µs");
    cleanup();
  });

  it("adds no listener however often the strip, the legends and the table are drawn again", async () => {
    const census = installListenerCensus();
    const model = new FakeModel();
    model.state = { selection: [], color_scheme: "default", show_grid: false, height: "400px", title: "t" };
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    const graph: GraphSnapshot = { nodes: [node("n0"), node("n1")], edges: [] };
    model.emit("msg:custom", { kind: "snapshot", version: 1, graph, title: "t" }, [new DataView(new Float32Array([0, 0, 0, 100]).buffer)]);
    await new Promise((r) => setTimeout(r, 10));
    const values = new Float64Array([0.5, 2, 10, 90, 1, 1, 0.5, 100, NaN, NaN, 2, 100, NaN, NaN]);
    const heat = {
      kind: "overlay", overlay: "heat", action: "set", metric: "time", units: { time: "ms", share: "%" },
      source: "m.dld-report.json", count: 2, ids: "n0\x1fn1", layers: "0\x1f1", reasons: "\x1f", reason_texts: [],
      layer_count: 2, layer_names: "a\x1fb",
    };
    const divergence = {
      kind: "overlay", overlay: "divergence", action: "set", source: "fp16", metric: "max_abs", tolerance: 1e-4,
      headline: "1 past", first: "n1", first_name: "n1", first_row: 1, groups: {},
      rows: ["n0", "n1"].map((id, order) => ({ id, node: id, op: "Relu", order, output: 0, max_abs: order, max_rel: 0,
        cosine: 1, sqnr: 60, nan: 0, inf: 0, over: order === 1, value: order, error: null, worst: true })),
    };
    const round = () => {
      for (const owner of ["heat", "divergence", "heat"]) {
        model.emit("msg:custom", { ...strip(owner), entries: ["heat", "divergence"].map((name) => ({ name, label: name, visible: true, paints: true })) }, []);
        model.emit("msg:custom", heat, [new DataView(values.buffer.slice(0))]);
        model.emit("msg:custom", divergence, []);
      }
    };
    round();
    const after = census.total();
    for (let i = 0; i < 5; i++) round();
    expect(census.total()).toBe(after);
    expect(el.querySelectorAll(".dld-overlay-strip, .dld-heat-legend").length).toBe(2);
    cleanup();
    expect(census.leftovers()).toEqual([]);
  });
});
