/**
 * Decodes the kernel's payload (dld_jupyter/widgets/report/report_payload.py, same names): JSON text plus one Float64
 * buffer that the JSON points into with [offset, length] references. Columns stay typed arrays; nothing here
 * copies per layer except the lower-cased names the filter needs.
 */
export type Ref = [number, number];
export interface Coded { values: string[]; codes: Ref }

export interface SummaryPayload {
  model: string; model_path: string; backend: string; provider: string; device: string;
  median_ms: number; passes: number; warmup_passes: number; min_ms: number; p90_ms: number; max_ms: number;
  mean_ms: number; stable: boolean; stability_note: string; optimization: string;
  profiling_overhead_ms: number | null; profiled_median_ms: number | null; device_memory_bytes: number | null;
  created: string; settings: Record<string, string | number | boolean>;
  // 95 % confidence intervals of the medians (order statistics); null with fewer than 6 passes or in older reports
  median_ci_ms?: number[] | null; profiled_median_ci_ms?: number[] | null; overhead_within_noise?: boolean | null;
}

export interface RecommendationPayload { id: string; severity: string; problem: string; advice: string; layers: number[] }

interface LayersPayload {
  count: number; name: string; onnx_nodes: string; // joined with \x1f (unit) and \x1e (record, per layer)
  type: Coded; precision: Coded; provider: Coded; input_dims: Coded; output_dims: Coded;
  index: Ref; stream: Ref; median_ms: Ref; mean_ms: Ref; min_ms: Ref; max_ms: Ref; overhead: Ref;
}
interface TimelinePayload {
  count: number; layer: Ref; stream: Ref; start_ms: Ref; duration_ms: Ref; overhead: Ref; labels: Record<string, string>;
}
interface MetricPayload { name: string; label: string; unit: string; times_ms: Ref; values: Ref }
export interface ReportPayload {
  label: string; colour: string; summary: SummaryPayload; system: Record<string, string>; removed_nodes: number;
  target?: string | null; passes_ms: Ref; layers: LayersPayload; timeline: TimelinePayload; metrics: MetricPayload[];
  recommendations: RecommendationPayload[];
}
export interface SummaryRow {
  label: string; colour: string; model: string; backend: string; provider: string; device: string; median_ms: number;
  passes: number; layers: number; layer_sum_ms: number; stable: boolean; diff_ms: number; diff_percent: number | null;
  target?: string | null; // where it ran (reports/summary_text.py's target_text); absent in older payloads
}
export interface ComparePayload {
  baseline: number; summaries: SummaryRow[]; types: { type: string; totals_ms: number[]; diffs_ms: number[] }[];
  /** Rows present in two or more reports (reports/compare.py Comparison.matched_count). */
  matched_count?: number;
  /** Why a report was paired by names only (its model or layer information not found). */
  notes?: string[];
  layers: {
    count: number; name: string; type: string; positions: Ref[]; times_ms: Ref[]; diffs_ms: Ref[];
    /** How each row was paired: "name", "structure" (through the networks) or "unpaired". */
    paired?: string;
  };
}
export interface Payload { version: number; reports: ReportPayload[]; compare: ComparePayload | null }

/** A dictionary-encoded text column: text(i) = values[codes[i]]. */
export interface Column { values: string[]; codes: Float64Array }
export const text = (c: Column, i: number): string => c.values[c.codes[i]] ?? "";

export interface Layers {
  count: number; name: string[]; lower: string[]; onnxNodes: string[][];
  type: Column; precision: Column; provider: Column; inputDims: Column; outputDims: Column;
  index: Float64Array; stream: Float64Array; median: Float64Array; mean: Float64Array; min: Float64Array;
  max: Float64Array; overhead: Float64Array;
}
export interface Timeline {
  count: number; layer: Float64Array; stream: Float64Array; start: Float64Array; duration: Float64Array;
  overhead: Float64Array; labels: Map<number, string>;
}
export interface Metric { name: string; label: string; unit: string; times: Float64Array; values: Float64Array }
export interface ReportData {
  label: string; colour: string; summary: SummaryPayload; system: Record<string, string>; removedNodes: number;
  target: string | null; passes: Float64Array; layers: Layers; timeline: Timeline; metrics: Metric[];
  recommendations: RecommendationPayload[]; layerSum: number;
}
export interface CompareData {
  baseline: number; summaries: SummaryRow[]; count: number; matchedCount: number; name: string[]; type: string[]; lower: string[];
  positions: Float64Array[]; times: Float64Array[]; diffs: Float64Array[]; paired: string[]; notes: string[];
}

/** The buffer as an aligned Float64Array (a DataView from the widget manager may start at any byte). */
export function floats(raw: unknown): Float64Array {
  if (raw instanceof DataView || ArrayBuffer.isView(raw)) {
    const view = raw as ArrayBufferView;
    const copy = view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength) as ArrayBuffer;
    return new Float64Array(copy, 0, Math.floor(copy.byteLength / 8));
  }
  if (raw instanceof ArrayBuffer) return new Float64Array(raw.slice(0, raw.byteLength - (raw.byteLength % 8)));
  return new Float64Array(0);
}

/** The kernel joins per-layer text with the ASCII unit separator (one JSON string instead of thousands). */
export const split = (joined: string, count: number, sep = "\x1f"): string[] => (count ? joined.split(sep) : []);

function decodeReport(p: ReportPayload, buf: Float64Array): ReportData {
  const at = (r: Ref): Float64Array => buf.subarray(r[0], r[0] + r[1]);
  const col = (c: Coded): Column => ({ values: c.values, codes: at(c.codes) });
  const L = p.layers;
  const names = split(L.name, L.count);
  const layers: Layers = {
    count: L.count, name: names, lower: names.map((n) => n.toLowerCase()),
    onnxNodes: split(L.onnx_nodes, L.count, "\x1e").map((nodes) => (nodes ? nodes.split("\x1f") : [])),
    type: col(L.type), precision: col(L.precision), provider: col(L.provider),
    inputDims: col(L.input_dims), outputDims: col(L.output_dims),
    index: at(L.index), stream: at(L.stream), median: at(L.median_ms), mean: at(L.mean_ms), min: at(L.min_ms),
    max: at(L.max_ms), overhead: at(L.overhead),
  };
  const T = p.timeline;
  const labels = new Map<number, string>();
  for (const [k, v] of Object.entries(T.labels)) labels.set(Number(k), v);
  let layerSum = 0;
  for (let i = 0; i < layers.count; i++) layerSum += layers.median[i];
  return {
    label: p.label, colour: p.colour, summary: p.summary, system: p.system, removedNodes: p.removed_nodes,
    target: p.target ?? null,
    passes: at(p.passes_ms), layers, layerSum,
    timeline: {
      count: T.count, layer: at(T.layer), stream: at(T.stream), start: at(T.start_ms), duration: at(T.duration_ms),
      overhead: at(T.overhead), labels,
    },
    metrics: p.metrics.map((m) => ({ name: m.name, label: m.label, unit: m.unit, times: at(m.times_ms), values: at(m.values) })),
    recommendations: p.recommendations,
  };
}

export function decode(payload: Payload, raw: unknown): { reports: ReportData[]; compare: CompareData | null } {
  const buf = floats(raw);
  const reports = (payload.reports ?? []).map((r) => decodeReport(r, buf));
  const c = payload.compare;
  if (!c) return { reports, compare: null };
  const at = (r: Ref): Float64Array => buf.subarray(r[0], r[0] + r[1]);
  return {
    reports,
    compare: {
      baseline: c.baseline, summaries: c.summaries, count: c.layers.count,
      matchedCount: c.matched_count ?? matchedRows(c.layers.positions.map(at), c.layers.count),
      name: split(c.layers.name, c.layers.count), type: split(c.layers.type, c.layers.count),
      lower: split(c.layers.name, c.layers.count).map((n) => n.toLowerCase()),
      positions: c.layers.positions.map(at), times: c.layers.times_ms.map(at), diffs: c.layers.diffs_ms.map(at),
      paired: c.layers.paired !== undefined ? split(c.layers.paired, c.layers.count) : new Array<string>(c.layers.count).fill("name"),
      notes: c.notes ?? [],
    },
  };
}

/** Rows present in two or more reports (position >= 0 in at least two): a payload without `matched_count`. */
export function matchedRows(positions: Float64Array[], count: number): number {
  let matched = 0;
  for (let p = 0; p < count; p++) if (positions.filter((column) => column[p] >= 0).length >= 2) matched++;
  return matched;
}
