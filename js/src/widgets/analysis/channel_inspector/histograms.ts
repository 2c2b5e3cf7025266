/**
 * The popped-out Channel Inspector's per-channel histograms (kernel half: dld_jupyter/widgets/analysis/
 * channel_histograms.py): reading the kernel's buffer, the labels, the bar under the pointer and the drawing.
 *
 * The buffer: float32 [minimum, maximum, mean, std, non-finite] per tile (NaN when a tile has no finite value), then
 * uint32 counts, `bins` per tile. A tile's bins span its own minimum to maximum (±0.5 around a constant tile's value),
 * as numpy.histogram chose them. Each bar is drawn in the colour map's colour of its bin's centre, so a histogram is
 * also the legend of its tile under the current shift and scale.
 */
import { formatValue, Layout } from "./paint";

export interface HistogramMeta {
  bins: number;
  tiles: number;
}

export interface ChannelHistogram {
  minimum: number;
  maximum: number;
  mean: number;
  std: number;
  nonFinite: number;
  counts: Uint32Array;
}

const STATS = 5;

/** The histograms of the tiles the kernel sent (null when it sent none: the docked inspector). */
export class HistogramSet {
  private constructor(
    readonly bins: number, readonly tiles: number, private readonly stats: Float32Array,
    private readonly counts: Uint32Array,
  ) {}

  static of(meta: HistogramMeta | Record<string, never> | undefined, buffer: DataView | ArrayBuffer | null | undefined): HistogramSet | null {
    if (!meta || !("bins" in meta) || !buffer || !meta.tiles) return null;
    const view = buffer instanceof DataView ? buffer : new DataView(buffer);
    const statBytes = meta.tiles * STATS * 4;
    if (view.byteLength !== statBytes + meta.tiles * meta.bins * 4) return null; // not this meta's buffer
    const bytes = view.byteOffset % 4 === 0
      ? view.buffer
      : view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength);
    const start = view.byteOffset % 4 === 0 ? view.byteOffset : 0;
    return new HistogramSet(
      meta.bins, meta.tiles, new Float32Array(bytes, start, meta.tiles * STATS),
      new Uint32Array(bytes, start + statBytes, meta.tiles * meta.bins),
    );
  }

  at(tile: number): ChannelHistogram | null {
    if (tile < 0 || tile >= this.tiles) return null;
    const s = this.stats.subarray(tile * STATS, tile * STATS + STATS);
    return {
      minimum: s[0], maximum: s[1], mean: s[2], std: s[3], nonFinite: s[4],
      counts: this.counts.subarray(tile * this.bins, (tile + 1) * this.bins),
    };
  }
}

/** The value range the bins span: [minimum, maximum], widened by 0.5 each side for a constant tile. */
export function binRange(h: ChannelHistogram): [number, number] {
  if (!Number.isFinite(h.minimum)) return [0, 1];
  return h.minimum === h.maximum ? [h.minimum - 0.5, h.maximum + 0.5] : [h.minimum, h.maximum];
}

/** Bar heights in pixels, the tallest bin at `height`; a bin with any value is at least 1 px. */
export function barHeights(counts: Uint32Array, height: number): number[] {
  let top = 0;
  counts.forEach((c) => (top = Math.max(top, c)));
  return Array.from(counts, (c) => (c === 0 ? 0 : Math.max(1, Math.round((c / top) * height))));
}

/** The tile's name: "c 12" (with "n 1, " when the batch has more than one), "row 3" for a strip. */
export function channelName(layout: Layout, tile: number): string {
  if (layout.kind === "strips") return `row ${tile}`;
  const c = tile % layout.c;
  return layout.n > 1 ? `n ${Math.floor(tile / layout.c)}, c ${c}` : `c ${c}`;
}

/** The statistics under a tile's histogram, on two lines (min and max, mean and std). */
export function channelStats(h: ChannelHistogram): string {
  const odd = h.nonFinite ? ` · NaN/Inf ${h.nonFinite}` : "";
  if (!Number.isFinite(h.minimum)) return `no finite value${odd}`;
  const f = formatValue;
  return `min ${f(h.minimum)} · max ${f(h.maximum)}\nmean ${f(h.mean)} · std ${f(h.std)}${odd}`;
}

/** The bin under the pointer at fraction `fx` of the histogram's width, as the readout says it. */
export function binReadout(name: string, h: ChannelHistogram, fx: number): string {
  const bins = h.counts.length;
  const i = Math.max(0, Math.min(bins - 1, Math.floor(fx * bins)));
  const [lo, hi] = binRange(h);
  const step = (hi - lo) / bins;
  const close = i === bins - 1 ? "]" : ")";
  return `${name} · [${formatValue(lo + i * step)}, ${formatValue(lo + (i + 1) * step)}${close} · ${h.counts[i]} value${h.counts[i] === 1 ? "" : "s"}`;
}

/** Draw `h` into a 2D context of `width`×`height` pixels, each bar in `colour` of its bin's centre. */
export function paintHistogram(
  ctx: CanvasRenderingContext2D, width: number, height: number, h: ChannelHistogram,
  colour: (v: number) => [number, number, number],
): void {
  ctx.clearRect(0, 0, width, height);
  const bins = h.counts.length;
  const heights = barHeights(h.counts, height);
  const [lo, hi] = binRange(h);
  const step = (hi - lo) / bins;
  const w = width / bins;
  for (let i = 0; i < bins; i++) {
    if (!heights[i]) continue;
    const [r, g, b] = colour(lo + (i + 0.5) * step);
    ctx.fillStyle = `rgb(${r},${g},${b})`; // on a light ground (inspector.css): black bars of values near 0 show
    ctx.fillRect(Math.floor(i * w), height - heights[i], Math.max(1, Math.ceil(w) - 1), heights[i]);
  }
}
