// The Network Overview overlay on a headless cytoscape graph: glyphs gain their shape line, the breakpoint badge
// and the stop outline; a selected node's input links turn yellow (an-in) and output links blue (an-out); its menu
// offers Add/Remove Breakpoint on op nodes only and asks the kernel; clear restores everything.
import cytoscape from "cytoscape";
import { describe, expect, it } from "vitest";

import { FakeModel } from "../../../common/testing";
import type { CanvasContext } from "../context";
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
  const ctx = {
    cy, model, root: document.createElement("div"), store: { nodes },
    listeners: { cy: (c: cytoscape.Core, events: string, selector: string, fn: () => void) => c.on(events, selector, fn) },
  } as unknown as CanvasContext;
  return { cy, model, ctx };
}

describe("analysis overlay", () => {
  it("draws shapes, badge, stop and link colours, offers breakpoints and clears", () => {
    const { cy, model, ctx } = context();
    const overlay = new AnalysisOverlay(ctx);
    overlay.receive({ kind: "overlay", overlay: "analysis", action: "set", lines: { a: "1×8×4×4", b: "1×8×4×4" }, breakpoints: ["a"], position: "b" } as never);
    expect(cy.$id("a").data("alabel")).toBe("conv\nConv\n1×8×4×4");
    expect(cy.$id("a").hasClass("an") && cy.$id("a").hasClass("an-bp")).toBe(true);
    expect(cy.$id("b").hasClass("an-here")).toBe(true);
    expect(cy.$id("x").hasClass("an")).toBe(false);
    cy.$id("a").select();
    expect(cy.$id("e1").hasClass("an-in")).toBe(true);
    expect(cy.$id("e2").hasClass("an-out")).toBe(true);
    expect(overlay.menuItems("x")).toEqual([]);
    const items = overlay.menuItems("a");
    expect(items.map((i) => i.label)).toEqual(["Remove Breakpoint", "Inspect Channels"]);
    items[0].run();
    expect(model.sent[0]).toEqual({ kind: "overlay", overlay: "analysis", action: "remove_breakpoint", id: "a" });
    expect(overlay.menuItems("b")[0].label).toBe("Add Breakpoint");
    overlay.receive({ kind: "overlay", overlay: "analysis", action: "clear" });
    expect(cy.elements(".an, .an-bp, .an-here, .an-in, .an-out").length).toBe(0);
    expect(overlay.menuItems("a")).toEqual([]);
    expect(ctx.root.dataset.analysis).toBeUndefined();
    expect(analysisLabel("", "1×3")).toBe("1×3");
  });
});
