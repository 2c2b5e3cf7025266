// The Network Overview overlay on a headless cytoscape graph: glyphs gain their shape line, the breakpoint badge
// and the stop outline; a selected node's input links turn yellow (an-in) and output links blue (an-out); its menu
// offers Add/Remove Breakpoint on op nodes only and asks the kernel; the analysis layers: a node they follow wears the
// an-layer badge and a "+ name" line, its menu adds one after it (a Mix with the one other selected node, graph inputs
// too) and removes the ones it has; clear restores everything.
import cytoscape from "cytoscape";
import { describe, expect, it } from "vitest";

import type { AnyModel } from "@anywidget/types";
import { FakeModel } from "../../../common/testing";
import { Channel } from "../channel";
import type { CanvasContext } from "../context";
import { Toasts } from "../toasts";
import { AnalysisOverlay, analysisLabel } from "./analysis";

function context() {
  const cy = cytoscape({
    headless: true,
    elements: [
      { data: { id: "x", label: "input" } }, { data: { id: "a", label: "conv\nConv" } }, { data: { id: "b", label: "relu\nRelu" } },
      { data: { id: "e1", source: "x", target: "a" } }, { data: { id: "e2", source: "a", target: "b" } },
    ],
  });
  const model = new FakeModel();
  const nodes = new Map([["x", { id: "x", kind: "input" }], ["a", { id: "a", kind: "op" }], ["b", { id: "b", kind: "op" }]]);
  const root = document.createElement("div");
  const channel = new Channel(model as unknown as AnyModel, new Toasts(root), () => undefined);
  const ctx = {
    cy, model, root, store: { nodes }, channel,
    listeners: { cy: (c: cytoscape.Core, events: string, selector: string, fn: () => void) => c.on(events, selector, fn) },
  } as unknown as CanvasContext;
  return { cy, model, ctx, view: channel.view };
}

describe("analysis overlay", () => {
  it("draws shapes, badge, stop and link colours, offers breakpoints and clears", () => {
    const { cy, model, ctx, view } = context();
    const overlay = new AnalysisOverlay(ctx);
    overlay.receive({ kind: "overlay", overlay: "analysis", action: "set", lines: { a: "1×8×4×4", b: "1×8×4×4" }, breakpoints: ["a"], position: "b" } as never);
    expect(cy.$id("a").data("alabel")).toBe("conv\nConv\n1×8×4×4");
    expect(cy.$id("a").hasClass("an") && cy.$id("a").hasClass("an-bp")).toBe(true);
    expect(cy.$id("b").hasClass("an-here")).toBe(true);
    expect(cy.$id("x").hasClass("an")).toBe(false);
    cy.$id("a").select();
    expect(cy.$id("e1").hasClass("an-in")).toBe(true);
    expect(cy.$id("e2").hasClass("an-out")).toBe(true);
    expect(overlay.menuItems("x").some((i) => i.label.includes("Breakpoint"))).toBe(false);
    const items = overlay.menuItems("a");
    expect(items.map((i) => i.label)).toEqual([
      "Remove Breakpoint", "Inspect Channels", "Add Analysis Layer: Affine", "Add Analysis Layer: Noise", "Add Analysis Layer: Snapshot",
    ]);
    items[0].run();
    // in the envelope (channel.ts overlayRequest): a request number and the view, so the kernel's reply settles it
    expect(model.sent[0]).toEqual({ kind: "overlay", overlay: "analysis", action: "remove_breakpoint", id: "a", request: 1, view });
    expect(overlay.menuItems("b")[0].label).toBe("Add Breakpoint");
    overlay.receive({ kind: "overlay", overlay: "analysis", action: "clear" });
    expect(cy.elements(".an, .an-bp, .an-here, .an-in, .an-out").length).toBe(0);
    expect(overlay.menuItems("a")).toEqual([]);
    expect(ctx.root.dataset.analysis).toBeUndefined();
    expect(analysisLabel("", "1×3")).toBe("1×3");
  });

  it("badges the nodes analysis layers follow and adds or removes them from the menu", () => {
    const { cy, model, ctx, view } = context();
    const overlay = new AnalysisOverlay(ctx);
    const layers = { a: [{ name: "/analysis/Noise1", kind: "Noise" }, { name: "/analysis/Mix1", kind: "Mix" }], x: [{ name: "/analysis/Mix1", kind: "Mix" }] };
    overlay.receive({ kind: "overlay", overlay: "analysis", action: "set", lines: { a: "1×8×4×4" }, breakpoints: [], position: null, layers } as never);
    expect(cy.$id("a").data("alabel")).toBe("conv\nConv\n1×8×4×4\n+ Noise1\n+ Mix1");
    expect(cy.$id("x").data("alabel")).toBe("input\n+ Mix1");
    expect(cy.nodes(".an-layer").map((n) => n.id()).sort()).toEqual(["a", "x"]);
    expect(cy.$id("b").hasClass("an-layer")).toBe(false);
    cy.$id("x").select();
    cy.$id("b").select();
    const items = overlay.menuItems("b");
    expect(items.map((i) => i.label).slice(2)).toEqual(["Add Analysis Layer: Affine", "Add Analysis Layer: Noise", "Add Analysis Layer: Snapshot", "Add Analysis Layer: Mix with input"]);
    items[3].run();
    items[5].run();
    expect(model.sent).toEqual([
      { kind: "overlay", overlay: "analysis", action: "add_layer", id: "b", layer: "Noise", request: 1, view },
      { kind: "overlay", overlay: "analysis", action: "add_layer", id: "b", layer: "Mix", other: "x", request: 2, view },
    ]);
    const input = overlay.menuItems("x").map((i) => i.label);  // a graph input: layers, no breakpoint
    expect(input[0]).toBe("Add Analysis Layer: Affine");
    expect(input.slice(-1)).toEqual(["Remove Analysis Layer Mix1"]);
    overlay.menuItems("a").find((i) => i.label === "Remove Analysis Layer Noise1")?.run();
    expect(model.sent[2]).toEqual({ kind: "overlay", overlay: "analysis", action: "remove_layer", id: "a", layer: "/analysis/Noise1", request: 3, view });
    overlay.receive({ kind: "overlay", overlay: "analysis", action: "clear" });
    expect(cy.nodes(".an-layer").length).toBe(0);
  });
});
