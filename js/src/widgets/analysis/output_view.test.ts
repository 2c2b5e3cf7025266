// The Analysis Output view in jsdom: an image output as a canvas, class scores as a top-k table, other tensors as a
// statistics line and a histogram; names drawn as text; a change redraws; cleanup removes every listener.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel, installCanvasStandIns, installListenerCensus, ListenerCensus } from "../../common/testing";
import widget, { barHeights, heading } from "./output_view";

const outputs = [
  { name: "<i>image</i>", shape: [1, 3, 8, 8], dtype: "float32", kind: "image", images: 1, of: 1, height: 8, width: 8, offset: 0 },
  { name: "logits", shape: [1, 10], dtype: "float32", kind: "classes", softmax: true, row_count: 1, classes: 10,
    rows: [[{ index: 7, score: 4.5, probability: 0.9 }, { index: 2, score: 1, probability: 0.05 }]] },
  { name: "hidden", shape: [1, 4], dtype: "int64", kind: "stats",
    stats: { count: 4, minimum: 0, maximum: 3, mean: 1.5, std: 1.1, nan: 0, inf: 0 }, histogram: { counts: [1, 0, 3], low: 0, high: 3 } },
];

describe("analysis output view", () => {
  let census: ListenerCensus;
  beforeEach(() => {
    census = installListenerCensus();
    installCanvasStandIns();
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => ({
      createImageData: (w: number, h: number) => ({ data: new Uint8ClampedArray(w * h * 4) }),
      putImageData: () => {},
    }) as never);
  });
  afterEach(() => vi.restoreAllMocks());

  it("renders each reading and cleans up", async () => {
    const model = new FakeModel();
    model.state = { outputs, pixels: new DataView(new ArrayBuffer(8 * 8 * 4)), message: "stopped at conv1" };
    const before = census.total();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(el.querySelectorAll("canvas.dld-ao-image").length).toBe(1);
    expect(el.querySelector("i")).toBeNull();
    expect(el.querySelector(".dld-ao-heading")?.textContent).toBe("<i>image</i> · 1×3×8×8 float32");
    const cells = Array.from(el.querySelectorAll(".dld-ao-table tbody td")).map((td) => td.textContent);
    expect(cells.slice(0, 3)).toEqual(["7", "90.00%", "4.5"]);
    expect(el.querySelector(".dld-ao-classes .dld-ao-note")?.textContent).toContain("softmax");
    expect(el.querySelectorAll(".dld-ao-hbar").length).toBe(3);
    expect(el.querySelector(".dld-ao-line")?.textContent).toContain("mean 1.5");
    model.state.outputs = [outputs[2]];
    model.emit("change:outputs");
    await Promise.resolve();
    expect(el.querySelectorAll("section").length).toBe(1);
    cleanup();
    expect(census.total()).toBe(before);
    expect(model.count()).toBe(0);
  });

  it("scales histogram bars to the largest bin and names an output with its shape", () => {
    expect(barHeights([1, 0, 4])).toEqual([0.25, 0, 1]);
    expect(barHeights([0, 0])).toEqual([0, 0]);
    expect(heading({ name: "y", shape: [], dtype: "float32", kind: "stats" })).toBe("y · scalar float32");
  });
});
