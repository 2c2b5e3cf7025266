import { describe, expect, it } from "vitest";
import { NEUTRAL, VIRIDIS, decodeHeat, formatEnds, formatValue, heatColor, luminance, middleOf, scaleOf } from "./heat_scale";

const parse = (css: string): [number, number, number] => css.match(/\d+/g)!.map(Number) as [number, number, number];
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

describe("heat colour scale", () => {
  it("runs from light yellow (least) to dark violet (most), clamped outside [0, 1]", () => {
    expect(heatColor(0).bg).toBe("rgb(253,231,37)");
    expect(heatColor(1).bg).toBe("rgb(68,1,84)");
    expect(heatColor(-3).bg).toBe(heatColor(0).bg);
    expect(heatColor(7).bg).toBe(heatColor(1).bg);
    expect(heatColor(NaN).bg).toBe(heatColor(0).bg);
  });

  it("gets darker as the value grows: the order survives colour-vision deficiencies and greyscale", () => {
    let last = Infinity;
    for (let t = 0; t <= 1.0001; t += 0.02) {
      const l = luminance(parse(heatColor(t).bg));
      expect(l).toBeLessThan(last);
      last = l;
    }
  });

  it("keeps the label readable everywhere on the scale (WCAG AA, 4.5:1)", () => {
    for (let t = 0; t <= 1.0001; t += 0.01) {
      const c = heatColor(t);
      const text = c.fg === "#ffffff" ? 1 : 0;
      expect(contrast(luminance(parse(c.bg)), text)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("never uses the neutral grey of nodes without a time", () => {
    const neutral = parse(`rgb(${[1, 3, 5].map((i) => parseInt(NEUTRAL.bg.slice(i, i + 2), 16)).join(",")})`);
    for (let t = 0; t <= 1.0001; t += 0.05) {
      const [r, g, b] = parse(heatColor(t).bg);
      const d = Math.abs(r - neutral[0]) + Math.abs(g - neutral[1]) + Math.abs(b - neutral[2]);
      expect(d).toBeGreaterThan(100);
    }
    expect(VIRIDIS).toHaveLength(9);
  });

  it("scales logarithmically between the smallest and largest value shown; a single value sits at the top", () => {
    expect(scaleOf(0.004, 0.004, 2)).toBe(0);
    expect(scaleOf(2, 0.004, 2)).toBe(1);
    expect(scaleOf(0.04, 0.004, 0.4)).toBeCloseTo(0.5, 12); // one decade of two: the middle
    expect(middleOf(0.004, 0.4)).toBeCloseTo(0.04, 12);
    expect(scaleOf(5, 5, 5)).toBe(1);
    expect(scaleOf(0, 0, 1)).toBe(0); // a zero-time layer: the bottom, not NaN
    expect(Number.isFinite(scaleOf(0.5, 0, 1))).toBe(true);
  });

  it("formats values with their unit", () => {
    expect(formatValue(1.2345, "time")).toBe("1.23 ms");
    expect(formatValue(0.0042, "time")).toBe("4.2 µs");
    expect(formatValue(0.25, "time")).toBe("0.250 ms");
    expect(formatValue(12.34, "share")).toBe("12.3 %");
    expect(formatValue(NaN, "share")).toBe("—");
    expect(formatEnds([0.004, 0.084], "time")).toEqual(["0.004 ms", "0.084 ms"]); // one unit for all labels
    expect(formatEnds([0.0004, 0.03, 2.5], "time")).toEqual(["0.0004 ms", "0.03 ms", "2.50 ms"]);
    expect(formatEnds([0.001, 0.005], "time")).toEqual(["1.0 µs", "5.0 µs"]);
    expect(formatEnds([0.25, 73.6], "share")).toEqual(["0.25 %", "73.6 %"]);
  });
});

describe("heat message", () => {
  it("decodes the kernel's layout: time, share, layer counts, then per-layer figures", () => {
    const buffer = new Float64Array([
      0.5, NaN, 0.75, // time of n1, n2, g:a
      40, NaN, 60, // share
      1, 0, 2, // layer counts
      0.5, 0.25, // median per layer
      40, 20, // percent
      0.45, NaN, // CI low
      0.55, NaN, // CI high
    ]);
    const data = decodeHeat({
      kind: "overlay", overlay: "heat", action: "set", metric: "time", units: { time: "ms", share: "%" }, source: "m.dld-report.json", count: 3,
      ids: "n1\x1fn2\x1fg:a", layers: "0\x1f\x1f0,1", reasons: "\x1f0\x1f", reason_texts: ["folded constant"],
      layer_count: 2, layer_names: "conv\x1frelu",
    }, buffer);
    expect(data.index.get("g:a")).toBe(2);
    expect(Array.from(data.values.time)).toEqual([0.5, NaN, 0.75]);
    expect(Array.from(data.values.share)).toEqual([40, NaN, 60]);
    expect(data.layers).toEqual([[0], [], [0, 1]]);
    expect(data.reasons).toEqual(["", "folded constant", ""]);
    expect(data.layerNames).toEqual(["conv", "relu"]);
    expect(Array.from(data.ciLow)).toEqual([0.45, NaN]);
    expect(Array.from(data.ciHigh)).toEqual([0.55, NaN]);
  });
});
