/**
 * The network summary (seed 000 "Network Summary"): model, backend, execution provider (ONNX Runtime) or inference
 * device (TensorRT), median time, passes, device memory (TensorRT), the spread of the passes with the stability
 * flag, and the per-node profiler's overhead.
 */
import { ReportData } from "./data";
import { bytes, el, ms } from "./format";

export function summaryView(r: ReportData): HTMLElement {
  const s = r.summary;
  const trt = s.backend === "tensorrt";
  const root = el("div", "dld-r-summary");
  const rows: [string, string, string?][] = [
    ["Network", s.model || "(unnamed)", s.model_path],
    ["Backend", trt ? "TensorRT" : s.backend === "onnxruntime" ? "ONNX Runtime" : s.backend],
    trt ? ["Inference device", s.device || s.provider] : ["Execution provider", s.provider],
    ["Device", s.device],
    ["Median inference time", ms(s.median_ms), `${s.median_ms} ms`],
    ["Inference passes", `${s.passes}${s.warmup_passes ? ` (+${s.warmup_passes} warm-up)` : ""}`],
  ];
  if (trt) rows.push(["Device memory required", s.device_memory_bytes == null ? "not recorded" : bytes(s.device_memory_bytes)]);
  if (s.passes > 1 || s.max_ms > 0) rows.push(["Spread min / median / p90 / max", [s.min_ms, s.median_ms, s.p90_ms, s.max_ms].map(ms).join(" / ")]);
  if (s.profiling_overhead_ms != null) {
    rows.push(["Profiling overhead", `${ms(s.profiling_overhead_ms)}${s.profiled_median_ms != null ? ` (profiled median ${ms(s.profiled_median_ms)})` : ""}`,
      "Layer times come from a run with per-node profiling, which adds this much to the median pass"]);
  }
  if (s.optimization) rows.push(["Optimization", s.optimization]);
  rows.push(["Layers", `${r.layers.count}${r.removedNodes ? ` (${r.removedNodes} ONNX nodes optimized away)` : ""}`, `sum of layer times ${ms(r.layerSum)}`]);
  const grid = el("div", "dld-r-summary-grid");
  for (const [k, v, title] of rows) {
    const key = el("div", "dld-r-k", k);
    const val = el("div", "dld-r-v", v);
    if (title) val.title = title;
    grid.append(key, val);
  }
  const stable = el("div", `dld-r-stability ${s.stable ? "ok" : "warn"}`, s.stable ? "✓ stable: the passes agree" : `⚠ unstable: ${s.stability_note || "the spread of the passes is large"}`);
  stable.dataset.stable = String(s.stable);
  root.append(grid, stable);
  return root;
}
