// The Channel Inspector's pure parts: a tile's canvas size and the pixel under the pointer (tiles and wrapped
// strips), the fields' number parsing and display, and the statistics line.
import { describe, expect, it } from "vitest";

import { fieldText, typedValue } from "./controls";
import { statsLine, valueText } from "./labels";
import { Layout } from "./paint";
import { pixelAt, tileGeometry } from "./tiles";

const tiles: Layout = { kind: "tiles", n: 1, c: 4, h: 3, w: 5 };
const strip: Layout = { kind: "strips", n: 2, c: 1, h: 1, w: 10000 };

describe("channel inspector tiles", () => {
  it("sizes a tile's canvas: H×W for a map, a long strip wrapped at 8192", () => {
    expect(tileGeometry(tiles)).toEqual({ cw: 5, ch: 3, size: 15 });
    expect(tileGeometry(strip)).toEqual({ cw: 8192, ch: 2, size: 10000 });
  });

  it("finds the pixel and value under the pointer", () => {
    expect(pixelAt(tiles, 0, 0)).toEqual({ y: 0, x: 0, offset: 0 });
    expect(pixelAt(tiles, 0.99, 0.99)).toEqual({ y: 2, x: 4, offset: 14 });
    expect(pixelAt(tiles, 1, 1)).toEqual({ y: 2, x: 4, offset: 14 }); // the far edge is the last pixel
    expect(pixelAt(tiles, -0.1, 0.5)).toBeNull();
    expect(pixelAt(strip, 0.2, 0.75)).toEqual({ y: 0, x: 8192 + 1638, offset: 8192 + 1638 }); // second row of the wrap
    expect(pixelAt(strip, 0.9, 0.75)).toBeNull(); // past the strip's 10000 values
  });
});

describe("channel inspector fields and labels", () => {
  it("reads typed numbers and shows six significant digits", () => {
    expect(typedValue("0.25")).toBe(0.25);
    expect(typedValue("abc")).toBeNull();
    expect(typedValue("Infinity")).toBeNull();
    expect(fieldText(1 / 3)).toBe("0.333333");
    expect(fieldText(2)).toBe("2");
  });

  it("writes the statistics line, a dash where no value is finite", () => {
    const meta = {
      shape: [], dtype: "float32", layout: { kind: "strips", n: 1, c: 1, h: 1, w: 1 },
      encoding: { dtype: "float32", offset: 0, step: 1 }, shown: 1, tiles: 1,
      stats: { count: 1, minimum: null, maximum: null, mean: null, std: null, nan: 1, inf: 0 },
      default_shift: 0, default_scale: 1,
    } as const;
    expect(valueText(null)).toBe("—");
    expect(statsLine(meta as never)).toBe("scalar float32 · min — · max — · mean — · std — · NaN 1, Inf 0");
    const many = { ...meta, shape: [1, 2000, 2, 2], shown: 2000, tiles: 2000 };
    expect(statsLine(many as never, 1024)).toContain("· histograms of the first 1024");
    expect(statsLine(many as never, 2000)).not.toContain("histograms");
  });
});
