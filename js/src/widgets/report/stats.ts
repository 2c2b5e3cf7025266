/**
 * Selection statistics in the browser (one click must not wait for the kernel), with the semantics of
 * dld_jupyter/reports/stats.py: discrete columns list every value by descending frequency (ties in first-seen
 * order, the most common ones all kept); times give count/min/max/mean/total; percentages are of the sum of
 * layer times, or of the median pass time with "full pass". Several rows selected summarize them; one or none,
 * the whole pass. tests: stats.test.ts checks a case computed by the Python module (fixtures/selection_case.json).
 */
import { Column, ReportData, text } from "./data";

export interface ValueCounts { column: string; mostCommon: string[]; counts: [string, number][] }
export interface TimeStats { column: string; count: number; min: number; max: number; mean: number; total: number }
export interface SelectionSummary {
  count: number; fullPass: boolean; discrete: Record<string, ValueCounts>; times: Record<string, TimeStats>;
}

export const DISCRETE: [string, (r: ReportData) => Column][] = [
  ["type", (r) => r.layers.type],
  ["precision", (r) => r.layers.precision],
  ["provider", (r) => r.layers.provider],
  ["input_dims", (r) => r.layers.inputDims],
  ["output_dims", (r) => r.layers.outputDims],
];

export function valueCounts(column: string, values: Iterable<string>): ValueCounts {
  const counts = new Map<string, number>(); // insertion order = first seen
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1]); // stable: ties keep first-seen order
  const top = ordered.length ? ordered[0][1] : 0;
  return { column, mostCommon: ordered.filter(([, n]) => n === top).map(([v]) => v), counts: ordered };
}

export function timeStats(column: string, values: ArrayLike<number>): TimeStats {
  const n = values.length;
  if (!n) return { column, count: 0, min: 0, max: 0, mean: 0, total: 0 };
  let total = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    total += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { column, count: n, min, max, mean: total / n, total };
}

/** What 100% means: the sum of layer times, or the median pass wall time with `fullPass` (when known). */
export function percentBase(report: ReportData, fullPass: boolean): number {
  return fullPass && report.summary.median_ms > 0 ? report.summary.median_ms : report.layerSum;
}

export function percentOf(report: ReportData, position: number, fullPass: boolean): number {
  const base = percentBase(report, fullPass);
  return base > 0 ? (100 * report.layers.median[position]) / base : 0;
}

export function summarize(report: ReportData, positions: number[] | null, fullPass: boolean): SelectionSummary {
  const chosen = positions ?? Array.from({ length: report.layers.count }, (_, i) => i);
  const discrete: Record<string, ValueCounts> = {};
  for (const [name, column] of DISCRETE) {
    const c = column(report);
    discrete[name] = valueCounts(name, chosen.map((p) => text(c, p)));
  }
  const times = chosen.map((p) => report.layers.median[p]);
  const base = percentBase(report, fullPass);
  const pct = chosen.map((p) => (base > 0 ? (100 * report.layers.median[p]) / base : 0));
  return {
    count: chosen.length, fullPass, discrete,
    times: { median_ms: timeStats("median_ms", times), percent: timeStats("percent", pct) },
  };
}

/** The table's rule: several selected rows summarize them; one or none, the whole pass. */
export function summarizeSelection(report: ReportData, selected: number[], fullPass: boolean): SelectionSummary {
  return summarize(report, selected.length > 1 ? selected : null, fullPass);
}

export interface TypeTime { type: string; count: number; totalMs: number; meanMs: number; meanPercent: number }

/** Per layer type: count, total and mean time, slowest mean first (stats.time_by_type). */
export function timeByType(report: ReportData): TypeTime[] {
  const totals = new Map<string, [number, number]>();
  const L = report.layers;
  for (let i = 0; i < L.count; i++) {
    const t = text(L.type, i);
    const cur = totals.get(t) ?? [0, 0];
    cur[0] += 1;
    cur[1] += L.median[i];
    totals.set(t, cur);
  }
  const scale = report.layerSum > 0 ? 100 / report.layerSum : 0;
  const rows = [...totals.entries()].map(([type, [count, total]]) => ({
    type, count, totalMs: total, meanMs: total / count, meanPercent: (total / count) * scale,
  }));
  return rows.sort((a, b) => b.meanMs - a.meanMs || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export interface TypePrecision { type: string; count: number; precisions: [string, number][] }

/** Per layer type: layers in each precision, most common type first (stats.precision_by_type). */
export function precisionByType(report: ReportData): TypePrecision[] {
  const per = new Map<string, Map<string, number>>();
  const L = report.layers;
  for (let i = 0; i < L.count; i++) {
    const t = text(L.type, i);
    const m = per.get(t) ?? new Map<string, number>();
    const p = text(L.precision, i);
    m.set(p, (m.get(p) ?? 0) + 1);
    per.set(t, m);
  }
  const rows = [...per.entries()].map(([type, m]) => ({
    type, count: [...m.values()].reduce((a, b) => a + b, 0), precisions: [...m.entries()].sort((a, b) => b[1] - a[1]),
  }));
  return rows.sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
