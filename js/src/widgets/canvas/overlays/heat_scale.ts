/**
 * The canvas heat's colour scale and its data (Python half: dld_jupyter/widgets/canvas/overlays/heat_payload.py).
 *
 * Scale: viridis (van der Walt & Smith), sequential and perceptually uniform, its lightness rising monotonically, so
 * the order of colours survives the common colour-vision deficiencies and greyscale printing. It runs from light
 * yellow (least time) to dark violet (most time): the canvas is white in both JupyterLab themes, so the costly
 * layers are the ones that stand out. Logarithmic from the smallest to the largest value on the canvas: layer times
 * span orders of magnitude (4 µs to 2 ms on one CPU MobileNet run), and on a linear scale one heavy layer or group
 * turned every other node the same yellow. The legend shows both ends and the middle (their geometric mean) in the
 * metric's unit. Nodes without a value are not on the scale: light grey with a dashed border.
 */

import type { OverlayMessage } from "../../../common/protocol";

export type HeatMetric = "time" | "share";

// Viridis, sampled at 0, 1/8, ..., 1 and reversed (light = little time).
export const VIRIDIS = [
  "#fde725", "#addc30", "#5ec962", "#28ae80", "#21918c", "#2c728e", "#3b528b", "#472d7b", "#440154",
];
export const NEUTRAL = { bg: "#f3f4f6", fg: "#6b7280", border: "#9ca3af" };

const rgb = (hex: string): [number, number, number] =>
  [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/** Relative luminance (WCAG) of an sRGB colour given as 0-255 channels. */
export function luminance(c: [number, number, number]): number {
  const lin = c.map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

/** Fill and text colour at `t` in [0, 1] (clamped): the text is black or white, whichever contrasts more. */
export function heatColor(t: number): { bg: string; fg: string } {
  const x = (Number.isFinite(t) ? Math.max(0, Math.min(1, t)) : 0) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const a = rgb(VIRIDIS[i]);
  const b = rgb(VIRIDIS[i + 1]);
  const c = a.map((v, k) => Math.round(v + (b[k] - v) * (x - i))) as [number, number, number];
  const l = luminance(c);
  // Contrast against black (l + .05) / .05 vs against white 1.05 / (l + .05): equal at l = 0.179, where both are
  // 4.58:1, so either choice passes WCAG AA (4.5:1) everywhere on the scale.
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, fg: l > 0.179 ? "#000000" : "#ffffff" };
}

/** Smallest value the scale starts at: a zero-time layer (below the timer's resolution) sits at the bottom. */
const FLOOR = 1e-9;

/** Position of `value` on a logarithmic scale from `min` to `max` (a single value: the top of the scale). */
export function scaleOf(value: number, min: number, max: number): number {
  const lo = Math.max(min, FLOOR);
  if (!(max > lo)) return 1;
  return Math.log(Math.max(value, lo) / lo) / Math.log(max / lo);
}

/** The value at the middle of the scale (the legend's middle label). */
export function middleOf(min: number, max: number): number {
  const lo = Math.max(min, FLOOR);
  return max > lo ? Math.sqrt(lo * max) : max;
}

/** The legend's labels (`values`, ascending) in one unit (µs only when all are below 10 µs): one scale. */
export function formatEnds(values: number[], metric: HeatMetric): string[] {
  const max = values[values.length - 1];
  if (metric === "share" || !Number.isFinite(max) || max < 0.01) return values.map((v) => formatValue(v, metric));
  const digits = max >= 100 ? 0 : max >= 1 ? 2 : 3;
  return values.map((v) => `${v.toFixed(Math.max(digits, v > 0 ? Math.min(4, Math.ceil(-Math.log10(v))) : digits))} ms`);
}

/** The legend's gradient. */
export const gradient = (): string => `linear-gradient(90deg, ${VIRIDIS.join(", ")})`;

/** A value with its unit, at a precision that tells neighbouring values apart. */
export function formatValue(value: number, metric: HeatMetric): string {
  if (!Number.isFinite(value)) return "—";
  if (metric === "share") return `${value >= 10 ? value.toFixed(1) : value >= 0.1 ? value.toFixed(2) : value.toFixed(3)} %`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  if (value >= 0.01) return `${value.toFixed(3)} ms`;
  return `${(value * 1000).toFixed(1)} µs`;
}

/** The heat overlay's state (action "set"); its Float64 buffer is laid out as heat_payload.py's module doc says. */
export interface HeatSetMessage extends OverlayMessage {
  overlay: "heat"; action: "set"; metric: HeatMetric; units: Record<string, string>; source: string; count: number;
  ids: string; layers: string; reasons: string; reason_texts: string[]; layer_count: number; layer_names: string;
}

/** From the browser: the legend's close button ("closed") and metric switch ("metric", with the new metric). */
export type HeatViewMessage =
  | (OverlayMessage & { overlay: "heat"; action: "closed" })
  | (OverlayMessage & { overlay: "heat"; action: "metric"; metric: HeatMetric });

export interface HeatData {
  metric: HeatMetric; source: string; index: Map<string, number>; ids: string[];
  values: Record<HeatMetric, Float64Array>; layerCount: Float64Array; layers: number[][]; reasons: string[];
  layerNames: string[]; median: Float64Array; percent: Float64Array; ciLow: Float64Array; ciHigh: Float64Array;
}

const split = (joined: string, count: number): string[] => (count ? joined.split("\x1f") : []);

/** The kernel's heat "set" message and its Float64 buffer, decoded (layout: heat_payload.py's module doc). */
export function decodeHeat(msg: HeatSetMessage, buffer: Float64Array): HeatData {
  const n = msg.count;
  const L = msg.layer_count;
  const at = (k: number, len: number) => buffer.subarray(k, k + len);
  const ids = split(msg.ids, n);
  const codes = split(msg.reasons, n);
  return {
    metric: msg.metric, source: msg.source, ids, index: new Map(ids.map((id, i) => [id, i])),
    values: { time: at(0, n), share: at(n, n) }, layerCount: at(2 * n, n),
    layers: split(msg.layers, n).map((s) => (s ? s.split(",").map(Number) : [])),
    reasons: codes.map((c) => (c === "" ? "" : msg.reason_texts[Number(c)] ?? "")),
    layerNames: split(msg.layer_names, L),
    median: at(3 * n, L), percent: at(3 * n + L, L), ciLow: at(3 * n + 2 * L, L), ciHigh: at(3 * n + 3 * L, L),
  };
}
