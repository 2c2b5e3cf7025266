// The Channel Inspector view in jsdom: one canvas per tile shown, only tiles in view painted, a shift edit written
// back to the model and repainting, Reset restoring the defaults, the title drawn as text, and cleanup removing every
// listener.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel, installCanvasStandIns, installListenerCensus, ListenerCensus } from "../../../common/testing";
import widget, { statsLine } from "./index";

class FakeObserver {
  static last: FakeObserver | null = null;
  targets: Element[] = [];
  constructor(public callback: (entries: IntersectionObserverEntry[]) => void) {
    FakeObserver.last = this;
  }
  observe(t: Element) { this.targets.push(t); }
  disconnect() { this.targets = []; }
  show(first: number, count: number) {
    this.callback(this.targets.map((target, i) => ({ target, isIntersecting: i >= first && i < first + count }) as never));
  }
}

const meta = {
  shape: [1, 6, 2, 2], dtype: "float32", layout: { kind: "tiles", n: 1, c: 6, h: 2, w: 2 },
  encoding: { dtype: "float32", offset: 0, step: 1 }, shown: 6, tiles: 6,
  stats: { count: 24, minimum: -1, maximum: 2, mean: 0.5, std: 1, nan: 0, inf: 0 },
  default_shift: 0, default_scale: 0.5,
};

describe("channel inspector view", () => {
  let census: ListenerCensus;
  beforeEach(() => {
    census = installListenerCensus();
    installCanvasStandIns();
    (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver = FakeObserver;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver;
  });

  it("paints tiles in view, writes shift back, resets and cleans up", async () => {
    const painted: number[] = [];
    const model = new FakeModel();
    const values = Float32Array.from({ length: 24 }, (_, i) => i / 8 - 1);
    model.state = { title: "<b>conv1</b> output", message: "", meta, data: new DataView(values.buffer), shift: 0, scale: 0.5, height: "200px" };
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(function (this: HTMLCanvasElement) {
      return {
        createImageData: (w: number, h: number) => ({ data: new Uint8ClampedArray(w * h * 4) }),
        putImageData: () => painted.push(Number(this.dataset.tile)),
      } as never;
    });
    const before = census.total();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    const tiles = el.querySelectorAll("canvas");
    expect(tiles.length).toBe(6);
    expect(el.querySelector(".dld-ci-title")?.textContent).toBe("<b>conv1</b> output");
    expect(el.querySelector("b")).toBeNull();
    FakeObserver.last?.show(0, 2);
    expect(painted).toEqual([0, 1]);
    const shift = el.querySelectorAll("input")[0] as HTMLInputElement;
    shift.value = "0.25";
    shift.dispatchEvent(new Event("change"));
    expect(model.state.shift).toBe(0.25);
    expect(painted.length).toBeGreaterThanOrEqual(4); // the two tiles in view, repainted
    (el.querySelector(".dld-ci-reset") as HTMLButtonElement).click();
    expect(model.state.shift).toBe(0);
    expect(model.state.scale).toBe(0.5);
    expect(el.querySelector(".dld-ci-note")?.textContent).toContain("1×6×2×2 float32");
    cleanup();
    expect(census.total()).toBe(before);
    expect(model.count()).toBe(0);
  });

  it("pops out on request, and the pop-out shows each tile in a card with its histogram", async () => {
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => ({
      createImageData: (w: number, h: number) => ({ data: new Uint8ClampedArray(w * h * 4) }),
      putImageData: () => undefined, clearRect: () => undefined, fillRect: () => undefined,
    }) as never);
    const values = Float32Array.from({ length: 24 }, (_, i) => i / 8 - 1);
    const docked = new FakeModel();
    docked.state = { title: "t", message: "", meta, data: new DataView(values.buffer), shift: 0, scale: 0.5, height: "200px", poppable: false };
    const el = document.createElement("div");
    const cleanDocked = widget.render({ model: docked, el } as never) as () => void;
    const popOut = el.querySelector(".dld-ci-popout") as HTMLButtonElement;
    expect(popOut.hidden).toBe(true); // nowhere to pop out to
    docked.state.poppable = true;
    docked.emit("change:poppable");
    expect(popOut.hidden).toBe(false);
    popOut.click();
    expect(docked.sent).toEqual([{ kind: "pop_out" }]);
    cleanDocked();

    const stats = new Float32Array(6 * 5).map((_, i) => (i % 5 === 4 ? 0 : i % 5)); // min 0 max 1 mean 2 std 3
    const counts = new Uint32Array(6 * 4).fill(1);
    const bytes = new Uint8Array(stats.byteLength + counts.byteLength);
    bytes.set(new Uint8Array(stats.buffer), 0);
    bytes.set(new Uint8Array(counts.buffer), stats.byteLength);
    const popped = new FakeModel();
    popped.state = {
      ...docked.state, poppable: false, detail: true, histograms: { bins: 4, tiles: 6 }, histogram_data: new DataView(bytes.buffer),
    };
    const big = document.createElement("div");
    const cleanPopped = widget.render({ model: popped, el: big } as never) as () => void;
    const cards = big.querySelectorAll(".dld-ci-card");
    expect(cards.length).toBe(6);
    expect(big.querySelectorAll(".dld-ci-card canvas.dld-ci-tile").length).toBe(6);
    expect(big.querySelectorAll("canvas.dld-ci-hist").length).toBe(6);
    expect(cards[4].querySelector(".dld-ci-card-name")?.textContent).toBe("c 4");
    expect(cards[4].querySelector(".dld-ci-card-stats")?.textContent).toBe("min 0 · max 1\nmean 2 · std 3");
    expect((big.querySelector(".dld-ci") as HTMLElement).dataset.histograms).toBe("6");
    expect((big.querySelector(".dld-ci-tile") as HTMLCanvasElement).style.width).toBe("16px"); // 2 px ×8, docked ×4
    cleanPopped();
    expect(popped.count()).toBe(0);
  });

  it("says when only the first tiles are shown", () => {
    expect(statsLine({ ...meta, shown: 2 } as never)).toContain("showing the first 2 of 6 tiles");
  });
});
