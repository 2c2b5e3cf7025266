// The TensorRT overlay is entered through the overlays' registry like the others: the layer explorer's request for
// a dialog comes as its "dialog" message (routed by name), and its context-menu items come through menuItems.
import cytoscape from "cytoscape";
import { describe, expect, it } from "vitest";

import type { CanvasContext } from "../../context";
import { Overlays } from "../base";
import { OVERLAY_KINDS } from "../index";
import { TENSORRT, tensorrtOverlay } from "./index";

function context(): CanvasContext {
  const cy = cytoscape({ headless: true, elements: [{ data: { id: "x" } }, { data: { id: "a" } }, { data: { id: "a2" } }] });
  const root = document.createElement("div");
  root.dataset.readOnly = "1"; // no badge listeners: this test is about the registry
  const nodes = new Map([["x", { id: "x", kind: "input", name: "x" }], ["a", { id: "a", kind: "op", name: "conv" }], ["a2", { id: "a2", kind: "op", name: "relu" }]]);
  return { cy, root, store: { nodes } } as unknown as CanvasContext;
}

describe("tensorrt overlay", () => {
  it("is registered, opens the dialog the kernel asks for, and offers its menu items", () => {
    expect(OVERLAY_KINDS).toContain(tensorrtOverlay);
    const ctx = context();
    const overlays = new Overlays([tensorrtOverlay]);
    overlays.receive({ kind: "overlay", overlay: TENSORRT, action: "dialog", dialog: "precision", nodes: ["a", "a2"] }, []);
    expect(ctx.root.querySelector(".dld-dialog")).toBeNull(); // kept until the canvas exists
    overlays.attach(ctx);
    const dialog = ctx.root.querySelector<HTMLElement>(".dld-dialog");
    expect(dialog?.dataset.dialog).toBe("precision");
    expect(dialog?.textContent).toContain("2 layers");
    ctx.cy.$id("a").select();
    expect(overlays.menuItems("a").map((i) => i.label)).toEqual(["Set Layer Precision…"]);
    expect(overlays.menuItems("x").map((i) => i.label)).toEqual(["Set TensorRT Optimization Profile…"]);
  });
});
