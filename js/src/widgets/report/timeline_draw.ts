/**
 * Drawing the inference timeline on a 2D canvas. Only ranges inside the view are visited (binary search per
 * stream on start-sorted events), and ranges narrower than a pixel collapse into one pixel column each, so a frame
 * costs at most ~width draw calls per row whatever the layer count. GPU metric rows are drawn normalized to their
 * own maximum (hover shows the real value).
 */
import { Metric, Timeline } from "./data";
import { ms } from "./format";
import { LIGHT, Theme, mix } from "../../common/theme";

export const AXIS = 22;
export const ROW = 26;
export const METRIC_ROW = 34;
export const GUTTER = 120;
export const COMPUTE = "#E69F00"; // Okabe-Ito orange: computation
export const OVERHEAD = "#0072B2"; // Okabe-Ito blue: reformats, copies, NoOps, H2D/D2H (blue as in the seed)
const METRIC = "#009E73";

export interface Lane { stream: number; order: Int32Array; maxDuration: number }
export interface View { t0: number; t1: number }

export interface DrawState {
  width: number; // CSS pixels
  view: View;
  lanes: Lane[];
  timeline: Timeline;
  names: (event: number) => string;
  metrics: { metric: Metric; max: number }[];
  highlight: Set<number>; // layer positions drawn outlined (selection)
  baselines?: Map<number, string>; // layer baselines: position -> their colour (baselines.ts), outlined in it
  focus: number; // layer position zoomed to from the table, or -1
  measure: View | null;
  theme?: Theme; // the JupyterLab theme's colours (light when absent)
}

/** The colours of the timeline's chrome under a theme (the ranges keep their Okabe-Ito colours). */
function inkOf(t: Theme) {
  return {
    axis: t.dark ? t.panel : "#f3f4f6",
    axisText: t.dark ? t.text : "#374151",
    grid: t.dark ? mix(t.background, t.text, 0.18) : "#e5e7eb",
    rule: t.dark ? t.border : "#d1d5db",
    text: t.text,
    mark: t.dark ? t.text : "#111827",
    measure: t.dark ? "rgba(255, 255, 255, 0.18)" : "rgba(17, 24, 39, 0.15)",
  };
}

export function lanesOf(t: Timeline): Lane[] {
  const by = new Map<number, number[]>();
  for (let i = 0; i < t.count; i++) {
    const s = t.stream[i];
    const list = by.get(s) ?? [];
    list.push(i);
    by.set(s, list);
  }
  if (!by.size) by.set(0, []);
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([stream, list]) => {
    list.sort((a, b) => t.start[a] - t.start[b]);
    let maxDuration = 0;
    for (const i of list) maxDuration = Math.max(maxDuration, t.duration[i]);
    return { stream, order: Int32Array.from(list), maxDuration };
  });
}

/** First position in `order` whose start is >= t (events sorted by start). */
export function lowerBound(order: Int32Array, start: Float64Array, t: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (start[order[mid]] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const heightOf = (lanes: number, metrics: number): number => AXIS + lanes * ROW + metrics * METRIC_ROW + 2;

function niceStep(span: number, pixels: number): number {
  const raw = span / Math.max(1, pixels / 90);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

export function draw(g: CanvasRenderingContext2D, s: DrawState): number {
  const { width, view } = s;
  const plot = Math.max(1, width - GUTTER);
  const scale = plot / Math.max(1e-12, view.t1 - view.t0);
  const X = (t: number) => GUTTER + (t - view.t0) * scale;
  const height = heightOf(s.lanes.length, s.metrics.length);
  const ink = inkOf(s.theme ?? LIGHT);
  g.clearRect(0, 0, width, height);
  g.font = "11px sans-serif";
  g.textBaseline = "middle";
  // Axis
  g.fillStyle = ink.axis;
  g.fillRect(0, 0, width, AXIS);
  const step = niceStep(view.t1 - view.t0, plot);
  g.fillStyle = ink.axisText;
  g.strokeStyle = ink.grid;
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    const x = Math.round(X(t)) + 0.5;
    g.beginPath();
    g.moveTo(x, AXIS - 5);
    g.lineTo(x, height);
    g.stroke();
    g.fillText(ms(Math.abs(t) < step / 1e6 ? 0 : t), x + 3, AXIS / 2);
  }
  let drawn = 0;
  let y = AXIS;
  const T = s.timeline;
  for (const lane of s.lanes) {
    g.fillStyle = ink.text;
    g.fillText(`Stream ${lane.stream}`, 6, y + ROW / 2);
    g.save();
    g.beginPath();
    g.rect(GUTTER, y, plot, ROW);
    g.clip();
    let lastPx = -1;
    const order = lane.order;
    for (let k = lowerBound(order, T.start, view.t0 - lane.maxDuration); k < order.length; k++) {
      const e = order[k];
      const start = T.start[e];
      if (start > view.t1) break;
      const end = start + T.duration[e];
      if (end < view.t0) continue;
      const x0 = X(start);
      const x1 = X(end);
      g.fillStyle = T.overhead[e] ? OVERHEAD : COMPUTE;
      if (x1 - x0 < 1) {
        const px = Math.floor(x0);
        if (px <= lastPx) continue; // this pixel column already holds a range: merge sub-pixel ranges
        g.fillRect(px, y + 3, 1, ROW - 6);
        lastPx = px;
        drawn++;
        continue;
      }
      g.fillRect(x0, y + 3, Math.max(1, x1 - x0 - (x1 - x0 > 4 ? 1 : 0)), ROW - 6);
      drawn++;
      lastPx = Math.floor(x1) - 1;
      const layer = T.layer[e];
      const baseline = layer >= 0 ? s.baselines?.get(layer) : undefined;
      if (baseline !== undefined) {
        g.strokeStyle = baseline;
        g.lineWidth = 3;
        g.strokeRect(x0 + 1.5, y + 1.5, Math.max(1, x1 - x0 - 3), ROW - 3);
        g.lineWidth = 1;
      }
      if (layer >= 0 && (s.highlight.has(layer) || layer === s.focus)) {
        g.strokeStyle = layer === s.focus ? "#CC79A7" : ink.mark;
        g.lineWidth = 2;
        g.strokeRect(x0 + 1, y + 2, Math.max(1, x1 - x0 - 2), ROW - 4);
        g.lineWidth = 1;
      }
      if (x1 - x0 > 36) {
        g.fillStyle = T.overhead[e] ? "#fff" : "#111";
        g.fillText(s.names(e), Math.max(x0, GUTTER) + 3, y + ROW / 2, x1 - Math.max(x0, GUTTER) - 6);
      }
    }
    g.restore();
    y += ROW;
  }
  for (const { metric, max } of s.metrics) {
    drawMetric(g, metric, max, y, plot, X, view, ink);
    y += METRIC_ROW;
  }
  if (s.measure) {
    const a = X(Math.min(s.measure.t0, s.measure.t1));
    const b = X(Math.max(s.measure.t0, s.measure.t1));
    g.fillStyle = ink.measure;
    g.fillRect(a, AXIS, Math.max(1, b - a), height - AXIS);
    g.fillStyle = ink.text;
    g.fillText(`Δ ${ms(Math.abs(s.measure.t1 - s.measure.t0))}`, Math.min(a + 4, width - 90), AXIS + 8);
  }
  return drawn;
}

function drawMetric(g: CanvasRenderingContext2D, m: Metric, max: number, y: number, plot: number, X: (t: number) => number, view: View, ink: ReturnType<typeof inkOf>): void {
  g.fillStyle = ink.text;
  g.fillText(`${m.label}${m.unit ? ` (${m.unit})` : ""}`, 6, y + METRIC_ROW / 2, GUTTER - 10);
  g.strokeStyle = ink.rule;
  g.beginPath();
  g.moveTo(GUTTER, y + METRIC_ROW - 0.5);
  g.lineTo(GUTTER + plot, y + METRIC_ROW - 0.5);
  g.stroke();
  const n = m.times.length;
  if (!n || max <= 0) return;
  const base = y + METRIC_ROW - 2;
  const h = METRIC_ROW - 6;
  g.save();
  g.beginPath();
  g.rect(GUTTER, y, plot, METRIC_ROW);
  g.clip();
  g.beginPath();
  // One point per pixel column (the column's maximum): thousands of samples cost at most `plot` line segments.
  let col = NaN;
  let colMax = 0;
  let first = NaN;
  for (let i = 0; i < n; i++) {
    const t = m.times[i];
    if (t < view.t0 && i + 1 < n && m.times[i + 1] < view.t0) continue;
    const px = Math.round(X(t));
    const v = m.values[i];
    if (px !== col) {
      if (Number.isNaN(col)) { first = px; g.moveTo(px, base); }
      else g.lineTo(col, base - (colMax / max) * h);
      col = px;
      colMax = v;
    } else if (v > colMax) colMax = v;
    if (t > view.t1) break;
  }
  if (Number.isNaN(first)) { g.restore(); return; }
  g.lineTo(col, base - (colMax / max) * h);
  g.lineTo(col, base);
  g.closePath();
  g.fillStyle = "rgba(0, 158, 115, 0.35)";
  g.fill();
  g.strokeStyle = METRIC;
  g.stroke();
  g.restore();
}
