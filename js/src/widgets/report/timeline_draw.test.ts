// The timeline draws only what is in view and merges sub-pixel ranges: a frame costs at most about one draw call
// per pixel column and row, whatever the number of layers; streams become rows in stream order.
import { describe, expect, it } from "vitest";
import { Timeline } from "./data";
import { draw, DrawState, GUTTER, lanesOf } from "./timeline_draw";

function timeline(n: number, streams = 1): Timeline {
  const f = (g: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => g(i));
  return {
    count: n, layer: f((i) => i), stream: f((i) => i % streams), start: f((i) => Math.floor(i / streams) * 0.01),
    duration: f(() => 0.009), overhead: f((i) => (i % 7 === 0 ? 1 : 0)), labels: new Map(),
  };
}

function counting(): { g: CanvasRenderingContext2D; rects: () => number } {
  let rects = 0;
  const g = new Proxy({} as Record<string | symbol, unknown>, {
    get: (t, k) => (k in t ? t[k] : k === "fillRect" ? () => { rects++; } : () => undefined),
    set: (t, k, v) => { t[k] = v; return true; },
  });
  return { g: g as unknown as CanvasRenderingContext2D, rects: () => rects };
}

function state(t: Timeline, t0: number, t1: number): DrawState {
  return { width: 1000, view: { t0, t1 }, lanes: lanesOf(t), timeline: t, names: () => "", metrics: [], highlight: new Set(), focus: -1, measure: null };
}

describe("timeline drawing", () => {
  it("merges sub-pixel ranges: 100,000 layers cost about one rect per pixel column", () => {
    const t = timeline(100_000);
    const { g, rects } = counting();
    const drawn = draw(g, state(t, 0, 1000));
    expect(drawn).toBeLessThanOrEqual(1000 - GUTTER + 1);
    expect(rects()).toBeLessThan(1000 + 10); // ranges + axis/background
  });

  it("visits only the ranges in view", () => {
    const t = timeline(100_000);
    const { g } = counting();
    expect(draw(g, state(t, 500, 500.1))).toBeLessThanOrEqual(12); // 10 ranges of 0.01 ms in view, plus edges
  });

  it("gives every stream its own row, in stream order", () => {
    const lanes = lanesOf(timeline(30, 3));
    expect(lanes.map((l) => l.stream)).toEqual([0, 1, 2]);
    expect(lanes.every((l) => l.order.length === 10)).toBe(true);
  });
});
