/**
 * The Dashboard overview (seed 004 4.1): GPU utilization, resource breakdown, kernel time, Tensor Core efficiency,
 * performance summary, iteration summary, top 10 ops, system configuration, recommendations and guidance. A panel
 * the report cannot fill shows the kernel's reason (`absent`), never a made-up figure.
 */
import { el, ms } from "../format";
import { DashboardData, Share } from "./data";
import { colourFor } from "./colours";
import { iterationBars } from "./iterations";


export function panel(title: string, id: string): HTMLElement {
  const root = el("div", "dld-d-panel");
  root.dataset.panel = id;
  root.append(el("div", "dld-d-title", title));
  return root;
}

/** A stacked bar with its legend (label, time, share); hover shows the figures. */
export function shareBar(shares: Share[], showMs = true): HTMLElement {
  const root = el("div", "dld-d-shares");
  const bar = el("div", "dld-d-bar");
  const legend = el("div", "dld-d-legend");
  shares.forEach((s) => {
    const colour = colourFor(s.label);
    const part = el("div", "dld-d-part");
    part.style.width = `${Math.max(0, Math.min(100, s.percent))}%`;
    part.style.background = colour;
    part.title = `${s.label}: ${s.percent.toFixed(1)} %${showMs ? ` (${ms(s.ms)})` : ""}`;
    bar.append(part);
    const item = el("div", "dld-d-item");
    const swatch = el("i");
    swatch.style.background = colour;
    item.append(swatch, el("span", "", s.label), el("b", "", `${s.percent.toFixed(1)} %`));
    if (showMs) item.append(el("span", "dld-d-ms", ms(s.ms)));
    legend.append(item);
  });
  root.append(bar, legend);
  return root;
}

const TITLES: Record<string, string> = {
  utilization: "GPU Utilization", breakdown: "Resource Usage Breakdown", kernel_time: "Total Kernel GPU Time",
  tc_efficiency: "Tensor Core Kernel Efficiency", idle: "GPU Idle Time",
};

function absent(data: DashboardData, key: string): HTMLElement | null {
  const why = data.absent[key];
  return why ? el("div", "dld-d-absent", `Not shown: ${why}`) : null;
}

/** Panels with nothing to show, grouped by their reason: one line per reason instead of the same text in each. */
function absentBanner(data: DashboardData): HTMLElement | null {
  const reasons = new Map<string, string[]>();
  for (const key of Object.keys(TITLES)) {
    const why = data.absent[key];
    if (why && !shown(data, key)) reasons.set(why, [...(reasons.get(why) ?? []), key]);
  }
  if (!reasons.size) return null;
  const root = el("div", "dld-d-panel dld-d-absent-banner");
  root.dataset.panel = "absent";
  for (const [why, keys] of reasons) {
    const line = el("div", "dld-d-absent");
    line.dataset.panels = keys.join(" ");
    line.append(el("b", "", `${keys.map((k) => TITLES[k]).join(", ")}: `), document.createTextNode(`not shown: ${why}`));
    root.append(line);
  }
  return root;
}

/** Whether a panel has figures of its own (else it lives only in the absent banner). */
function shown(data: DashboardData, key: string): boolean {
  if (key === "utilization") return data.utilization.length > 0;
  if (key === "breakdown") return data.breakdown.length > 0;
  if (key === "kernel_time") return data.kernel_time.length > 0;
  if (key === "tc_efficiency") return data.tc_efficiency !== null;
  return data.has_kernels && !data.absent.idle;
}

function grid(rows: [string, string][]): HTMLElement {
  const g = el("div", "dld-r-summary-grid");
  for (const [k, v] of rows) g.append(el("div", "dld-r-k", k), el("div", "dld-r-v", v));
  return g;
}

export function overview(data: DashboardData, onRange: (start: number, stop: number) => void): HTMLElement {
  const root = el("div", "dld-d-overview");
  const banner = absentBanner(data);
  if (banner) root.append(banner);
  const add = (title: string, id: string, ...content: (HTMLElement | null)[]) => {
    const p = panel(title, id);
    if (id in TITLES && !shown(data, id)) return p; // said once in the banner
    p.append(...content.filter((c): c is HTMLElement => c !== null));
    root.append(p);
    return p;
  };
  add("GPU Utilization", "utilization",
    data.utilization.length ? shareBar(data.utilization, false) : null,
    data.utilization_source ? el("div", "dld-d-note", data.utilization_source) : null);
  add("Resource Usage Breakdown", "breakdown", data.breakdown.length ? shareBar(data.breakdown) : null);
  add("Total Kernel GPU Time", "kernel_time", data.kernel_time.length ? shareBar(data.kernel_time) : null);
  const tc = data.tc_efficiency;
  add("Tensor Core Kernel Efficiency", "tc_efficiency",
    tc === null ? null : shareBar([{ label: "Tensor Core kernels", ms: 0, percent: tc }, { label: "Other kernels of eligible ops", ms: 0, percent: 100 - tc }], false));
  add("GPU Idle Time", "idle", data.has_kernels && !data.absent.idle ? grid([
    ["Host-bound (GPU waits for launches)", `${ms(data.idle.host_ms)} in ${data.idle.host_gaps} gaps`],
    ["GPU-bound (queued work waits)", `${ms(data.idle.gpu_ms)} in ${data.idle.gpu_gaps} gaps`],
  ]) : null);
  add("Performance Summary", "summary", grid(data.summary));
  add("Iteration Summary", "iterations", iterationBars(data, onRange));
  const top = add(`Top 10 Ops by ${data.top_ops_time}`, "top_ops", absent(data, "top_gpu_ops"));
  if (data.top_ops) {
    const t = el("table", "dld-d-grid");
    const head = el("tr");
    for (const c of data.top_ops.columns) head.append(el("th", "", c));
    t.append(head);
    for (const row of data.top_ops.rows) {
      const tr = el("tr");
      for (const cell of row) tr.append(el("td", typeof cell === "number" ? "num" : "", cell === null ? "" : typeof cell === "boolean" ? (cell ? "yes" : "no") : typeof cell === "number" && !Number.isInteger(cell) ? cell.toFixed(4) : String(cell)));
      t.append(tr);
    }
    top.append(t);
  }
  add("System Configuration", "system", grid(data.system));
  const recs = add(`Recommendations (${data.recommendations.length})`, "recommendations");
  if (!data.recommendations.length) recs.append(el("div", "dld-r-empty", "Nothing to recommend from this report's numbers."));
  for (const r of data.recommendations) {
    const row = el("div", `dld-r-rec ${r.severity}`);
    row.dataset.id = r.id;
    row.append(el("div", "dld-r-rec-problem", `${r.severity === "warning" ? "⚠" : "ℹ"} ${r.problem}`), el("div", "dld-r-rec-advice", r.advice));
    recs.append(row);
  }
  const guide = add("Guidance", "guidance");
  const list = el("ul");
  for (const g of data.guidance) list.append(el("li", "", g));
  guide.append(list);
  return root;
}
