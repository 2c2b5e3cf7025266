// The Channel Inspector's drawing helpers: the red/green map with shift and scale, uint8 codes through the lookup
// table painting the same colours as float32 values, non-finite values in blue, tile sizes and the readout text.
import { describe, expect, it } from "vitest";

import { Encoding, colourOf, lookupTable, paintInto, readout, tileBox, valueAt, valuesOf } from "./paint";

const f32: Encoding = { dtype: "float32", offset: 0, step: 1 };

describe("channel paint", () => {
  it("maps negative to red, positive to green, zero to black, under shift and scale", () => {
    expect(colourOf(-1, 0, 1)).toEqual([255, 0, 0]);
    expect(colourOf(0.5, 0, 1)).toEqual([0, 128, 0]);
    expect(colourOf(0, 0, 1)).toEqual([0, 0, 0]);
    expect(colourOf(3, 0, 1)).toEqual([0, 255, 0]); // clamped
    expect(colourOf(0.5, -0.5, 1)).toEqual([0, 0, 0]); // shifted to zero
    expect(colourOf(0.25, 0, 2)).toEqual([0, 128, 0]); // scaled up
    expect(colourOf(NaN, 0, 1)).toEqual([40, 90, 255]);
    expect(colourOf(Infinity, 0, 1)).toEqual([40, 90, 255]);
  });

  it("paints uint8 codes as their decoded float32 values would be painted", () => {
    const q: Encoding = { dtype: "uint8", offset: -2, step: 4 / 254 };
    const codes = Uint8Array.of(0, 127, 254, 255, 64);
    const floats = Float32Array.from(codes, (_c, i) => valueAt(codes, q, i));
    expect(valueAt(codes, q, 0)).toBeCloseTo(-2);
    expect(valueAt(codes, q, 2)).toBeCloseTo(2);
    expect(Number.isNaN(valueAt(codes, q, 3))).toBe(true);
    const a = new Uint8ClampedArray(codes.length * 4);
    const b = new Uint8ClampedArray(codes.length * 4);
    paintInto(a, codes, q, 0, codes.length, 0.5, 0.4, lookupTable(q, 0.5, 0.4));
    paintInto(b, floats, f32, 0, codes.length, 0.5, 0.4);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(a.slice(0, 4))).toEqual([153, 0, 0, 255]); // (-2 + 0.5) × 0.4 = -0.6: red 153
  });

  it("reads float32 values from an unaligned DataView", () => {
    const raw = new ArrayBuffer(12);
    new Float32Array(raw, 4, 2).set([1.5, -2]);
    const view = new DataView(raw, 4, 8);
    expect(Array.from(valuesOf(view, f32))).toEqual([1.5, -2]);
    const odd = new ArrayBuffer(9);
    new Uint8Array(odd).set(new Uint8Array(Float32Array.of(3, 4).buffer), 1);
    expect(Array.from(valuesOf(new DataView(odd, 1, 8), f32))).toEqual([3, 4]);
  });

  it("enlarges small tiles, keeps large ones 1:1 and makes strips as wide as the view", () => {
    expect(tileBox({ kind: "tiles", n: 1, c: 512, h: 28, w: 28 }, 800)).toEqual({ width: 84, height: 84 });
    expect(tileBox({ kind: "tiles", n: 1, c: 3, h: 224, w: 224 }, 800)).toEqual({ width: 224, height: 224 });
    expect(tileBox({ kind: "strips", n: 2, c: 1, h: 1, w: 10 }, 800)).toEqual({ width: 792, height: 14 });
  });

  it("says which tile, where and what value is under the pointer", () => {
    const layout = { kind: "tiles" as const, n: 2, c: 3, h: 4, w: 4 };
    expect(readout(layout, 4, 2, 3, 0.125, false)).toBe("n 1, c 1 · y 2, x 3 · 0.125");
    expect(readout(layout, 0, 0, 0, 0.125, true)).toBe("n 0, c 0 · y 0, x 0 · ≈ 0.125");
    expect(readout({ kind: "strips", n: 1, c: 1, h: 1, w: 9 }, 0, 0, 7, NaN, true)).toBe("row 0 · index 7 · NaN");
  });
});
