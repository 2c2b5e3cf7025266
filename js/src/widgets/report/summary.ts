/**
 * The network summary (seed 000 "Network Summary"): model, backend, execution provider (ONNX Runtime) or inference
 * device (TensorRT), median time, passes, device memory (TensorRT), the spread of the passes with the stability
 * flag, where the run ran (the target: local or a remote's name, and its host: reports/summary_text.py's
 * `target_text`), and the per-node profiler's overhead: each median with its 95 % confidence interval, and an overhead whose two
 * medians' intervals overlap said to be within noise (as `dld report show` says it, reports/summary_text.py).
 */
import { ReportData } from "./data";
import { bytes, el, ms } from "./format";

function interval(ci: number[] | null | undefined): string {
  return ci && ci.length === 2 ? ` (95% CI ${ms(ci[0])} – ${ms(ci[1])})` : "";
}

export function summaryView(r: ReportData): HTMLElement {
  const s = r.summary;
  const trt = s.backend === "tensorrt";
  const root = el("div", "dld-r-summary");
  const rows: [string, string, string?][] = [
    ["Network", s.model || "(unnamed)", s.model_path],
    ["Backend", trt ? "TensorRT" : s.backend === "onnxruntime" ? "ONNX Runtime" : s.backend],
    trt ? ["Inference device", s.device || s.provider] : ["Execution provider", s.provider],
    ["Device", s.device],
    ...(r.target ? [["Target", r.target, "Where the run ran: local, or the remote target's name, with the machine's host name"] as [string, string, string]] : []),
    ["Median inference time", `${ms(s.median_ms)}${interval(s.median_ci_ms)}`,
      "95 % confidence interval of the median from order statistics: two runs differ beyond noise when theirs do not overlap"],
    ["Inference passes", `${s.passes}${s.warmup_passes ? ` (+${s.warmup_passes} warm-up)` : ""}`],
  ];
  if (trt) rows.push(["Device memory required", s.device_memory_bytes == null ? "not recorded" : bytes(s.device_memory_bytes)]);
  if (s.passes > 1 || s.max_ms > 0) rows.push(["Spread min / median / p90 / max", [s.min_ms, s.median_ms, s.p90_ms, s.max_ms].map(ms).join(" / ")]);
  if (s.profiling_overhead_ms != null) {
    const figure = `${s.profiling_overhead_ms >= 0 ? "+" : ""}${ms(s.profiling_overhead_ms)}`;
    const said = s.overhead_within_noise ? `within noise (${figure})` : figure;
    const profiled = s.profiled_median_ms != null ? `; profiled median ${ms(s.profiled_median_ms)}${interval(s.profiled_median_ci_ms)}` : "";
    rows.push(["Profiling overhead", `${said}${profiled}`,
      "Layer times come from a run with per-node profiling; within noise: the two medians' 95 % intervals overlap"]);
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
