// The pop-out's histograms in jsdom: the kernel's buffer read back per tile (stats, then counts; refused when its
// length does not match), bar heights, the names and statistics under a tile, the bar under the pointer, and each
// bar drawn in the colour map's colour of its bin's centre.
import { describe, expect, it } from "vitest";

import {
  barHeights, binRange, binReadout, channelName, channelStats, HistogramSet, paintHistogram,
} from "./histograms";
import { colourOf } from "./paint";

/** A buffer as channel_histograms.py writes it: float32 stats (5 per tile), then uint32 counts. */
function buffer(stats: number[][], counts: number[][]): DataView {
  const bytes = new ArrayBuffer(stats.length * 20 + counts.length * counts[0].length * 4 + 4);
  new Float32Array(bytes, 4, stats.length * 5).set(stats.flat()); // at an offset, as a DataView into a message
  new Uint32Array(bytes, 4 + stats.length * 20, counts.flat().length).set(counts.flat());
  return new DataView(bytes, 4, bytes.byteLength - 4);
}

describe("channel histograms", () => {
  const set = HistogramSet.of({ bins: 4, tiles: 2 }, buffer(
    [[-1, 3, 0.5, 1.2, 0], [NaN, NaN, NaN, NaN, 6]], [[1, 0, 5, 2], [0, 0, 0, 0]],
  ));

  it("reads each tile's statistics and counts from the kernel's buffer", () => {
    expect(set).not.toBeNull();
    const first = set?.at(0);
    expect([first?.minimum, first?.maximum, first?.mean, first?.std, first?.nonFinite]).toEqual([-1, 3, 0.5, expect.closeTo(1.2, 5), 0]);
    expect(Array.from(first?.counts ?? [])).toEqual([1, 0, 5, 2]);
    expect(set?.at(1)?.nonFinite).toBe(6);
    expect(set?.at(2)).toBeNull();
    expect(HistogramSet.of({ bins: 4, tiles: 3 }, buffer([[0, 1, 0, 0, 0]], [[1, 1, 1, 1]]))).toBeNull(); // wrong size
    expect(HistogramSet.of({}, null)).toBeNull();
  });

  it("labels a tile and its statistics; a tile with no finite value says so", () => {
    expect(channelName({ kind: "tiles", n: 1, c: 8, h: 2, w: 2 }, 3)).toBe("c 3");
    expect(channelName({ kind: "tiles", n: 2, c: 8, h: 2, w: 2 }, 11)).toBe("n 1, c 3");
    expect(channelName({ kind: "strips", n: 3, c: 1, h: 1, w: 9 }, 2)).toBe("row 2");
    expect(channelStats(set!.at(0)!)).toBe("min -1 · max 3\nmean 0.5 · std 1.2");
    expect(channelStats(set!.at(1)!)).toBe("no finite value · NaN/Inf 6");
  });

  it("sizes bars to the tallest, keeps a lone value visible, and reads the bar under the pointer", () => {
    expect(barHeights(Uint32Array.of(1, 0, 500, 250), 40)).toEqual([1, 0, 40, 20]);
    const first = set!.at(0)!;
    expect(binRange(first)).toEqual([-1, 3]);
    expect(binRange({ ...first, minimum: 2, maximum: 2 })).toEqual([1.5, 2.5]);
    expect(binReadout("c 0", first, 0.6)).toBe("c 0 · [1, 2) · 5 values");
    expect(binReadout("c 0", first, 1)).toBe("c 0 · [2, 3] · 2 values"); // the last bin holds its right edge
  });

  it("draws each bar in the colour of its bin's centre", () => {
    const bars: [string, number, number, number, number][] = [];
    const ctx = {
      fillStyle: "",
      clearRect: () => undefined,
      fillRect(x: number, y: number, w: number, h: number) { bars.push([String(this.fillStyle), x, y, w, h]); },
    };
    paintHistogram(ctx as never, 40, 20, set!.at(0)!, (v) => colourOf(v, 0, 1 / 3));
    const rgb = (v: number) => `rgb(${colourOf(v, 0, 1 / 3).join(",")})`;
    expect(bars.map((b) => b[0])).toEqual([rgb(-0.5), rgb(1.5), rgb(2.5)]); // the centres of bins 0, 2 and 3
    expect(bars[0][0]).toBe("rgb(43,0,0)"); // below 0: red
    expect(bars.map((b) => b[4])).toEqual([4, 20, 8]);
  });
});
