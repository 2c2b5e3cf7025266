// The overlays registry (base.ts): routing by name, a message that comes before the canvas is set up kept (the
// latest per overlay) and handed over, and the heat overlay's state reaching a canvas mounted in jsdom before its
// first snapshot (a view that connects late gets the overlay states right after its snapshot, or before it).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel, installCanvasStandIns } from "../../../common/testing";
import type { GraphSnapshot, NodeData, OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import widget from "../index";
import { CanvasOverlay, Overlays, registerOverlay } from "./base";
import { OVERLAY_KINDS } from "./index";

class Recording implements CanvasOverlay {
  got: string[] = [];
  refreshed = 0;
  receive(msg: OverlayMessage): void {
    this.got.push(msg.action);
  }
  refresh(): void {
    this.refreshed += 1;
  }
}

const msg = (overlay: string, action: string): OverlayMessage => ({ kind: "overlay", overlay, action });

describe("overlays registry", () => {
  it("keeps the latest message of each overlay until the canvas is set up, then routes by name", () => {
    const made: Record<string, Recording> = {};
    const kind = (name: string) => ({ name, make: () => (made[name] = new Recording()) });
    const overlays = new Overlays([kind("a"), kind("b")]);
    overlays.receive(msg("a", "set"), []);
    overlays.receive(msg("a", "clear"), []); // supersedes the set: each message is the overlay's whole state
    overlays.receive(msg("b", "set"), []);
    expect(made).toEqual({});
    overlays.attach({} as CanvasContext);
    expect(made.a.got).toEqual(["clear"]);
    expect(made.b.got).toEqual(["set"]);
    overlays.receive(msg("b", "clear"), []);
    expect(made.a.got).toEqual(["clear"]);
    expect(made.b.got).toEqual(["set", "clear"]);
    overlays.refresh();
    expect([made.a.refreshed, made.b.refreshed]).toEqual([1, 1]);
    expect(() => overlays.receive(msg("divergence", "set"), [])).toThrow(/no overlay of.*it has a, b.*reinstall/);
  });

  it("refuses two kinds of one name, and lists heat", () => {
    expect(OVERLAY_KINDS.map((k) => k.name)).toContain("heat");
    expect(() => registerOverlay({ name: "heat", make: () => new Recording() })).toThrow(/two overlay kinds/);
  });
});

function node(id: string): NodeData {
  return {
    id, name: id, kind: "op", op_type: "Relu", domain: "", category: "Activation", composite: false, function: null,
    inputs: [], outputs: [], parent: null, collapsed: false, child_count: 0, diagnostic: null, precision: null,
    hidden_constant: false, width: 140, height: 48,
  } as unknown as NodeData;
}

describe("heat overlay on a mounted canvas", () => {
  beforeEach(() => installCanvasStandIns());
  afterEach(() => vi.restoreAllMocks());

  it("draws the heat state sent before the first snapshot, and its legend's close reaches the kernel", async () => {
    const model = new FakeModel();
    model.state = { selection: [], color_scheme: "default", show_grid: false, height: "400px", title: "t" };
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    // time[2] share[2] layer_count[2] | median[1] percent[1] ci_low[1] ci_high[1]
    const values = new Float64Array([0.5, NaN, 100, NaN, 1, 0, 0.5, 100, NaN, NaN]);
    model.emit("msg:custom", {
      kind: "overlay", overlay: "heat", action: "set", metric: "time", units: { time: "ms", share: "%" },
      source: "m.dld-report.json", count: 2, ids: "n0\x1fn1", layers: "0\x1f", reasons: "\x1f0",
      reason_texts: ["removed by the optimizer"], layer_count: 1, layer_names: "conv",
    }, [new DataView(values.buffer)]);
    const graph: GraphSnapshot = { nodes: [node("n0"), node("n1")], edges: [] };
    model.emit("msg:custom", { kind: "snapshot", version: 1, graph, title: "t" }, [new DataView(new Float32Array([0, 0, 0, 100]).buffer)]);
    await new Promise((r) => setTimeout(r, 10));
    expect(model.sent.filter((m) => (m as { kind: string }).kind === "js_error")).toEqual([]);
    const root = el.querySelector(".dld-canvas") as HTMLElement;
    const cy = (el.querySelector(".dld-stage") as unknown as { _cyreg: { cy: import("cytoscape").Core } })._cyreg.cy;
    expect(root.dataset.heat).toBe("time");
    expect(cy.getElementById("n0").hasClass("heat")).toBe(true);
    expect(cy.getElementById("n1").hasClass("heat-none")).toBe(true);
    (root.querySelector(".dld-heat-close") as HTMLButtonElement).click();
    expect(model.sent).toContainEqual(expect.objectContaining({ kind: "overlay", overlay: "heat", action: "closed", request: expect.any(Number) }));
    expect(cy.nodes(".heat, .heat-none").length).toBe(0);
    model.emit("msg:custom", { kind: "overlay", overlay: "nope", action: "set" }, []);
    expect(model.sent).toContainEqual(expect.objectContaining({ kind: "js_error", message: expect.stringContaining("reinstall") }));
    cleanup();
  });
});
