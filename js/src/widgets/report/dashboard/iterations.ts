/**
 * The Iterations view (seed 004 4.6): one bar per pass (height: its wall time; the part of its kernels on the GPU
 * and of those on Tensor Cores drawn inside), the passes outside the aggregation range greyed, and Start/Stop
 * fields that set the range; the kernel re-aggregates every panel (the viewer's `dashboard_range` trait).
 */
import { el, ms } from "../format";
import { DashboardData } from "./data";
import { CATEGORY } from "./colours";

const SVG = "http://www.w3.org/2000/svg";
const COUNTED = "#7f8c9a"; // slate: a pass that counts (the category colours stay for what ran in it)
const OUTSIDE = "#dddddd"; // DLProf's grey: outside the aggregation range

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export function iterationBars(data: DashboardData, onRange: (start: number, stop: number) => void, width = 560, height = 120): HTMLElement {
  const root = el("div", "dld-d-iterations");
  const its = data.iterations;
  const top = Math.max(...its.map((i) => Math.max(i.duration_ms ?? 0, i.gpu_ms ?? 0)), 1e-9);
  const chart = svg("svg", { width: "100%", height, viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", class: "dld-d-itchart" });
  const step = width / Math.max(its.length, 1);
  its.forEach((it, i) => {
    const x = i * step + 1;
    const w = Math.max(step - 2, 1);
    const h = ((it.duration_ms ?? it.gpu_ms ?? 0) / top) * (height - 4);
    const bar = svg("rect", { x, y: height - h, width: w, height: h, fill: it.in_range ? COUNTED : OUTSIDE, "data-index": i });
    const title = svg("title", {});
    title.textContent = `pass ${i}${it.median ? " (median)" : ""}: ${it.duration_ms === null ? "no measured time" : ms(it.duration_ms)}` +
      (it.gpu_ms === null ? "" : `; ${it.kernels} kernels (${it.tc_kernels} Tensor Core) ${ms(it.gpu_ms)} GPU, ${ms(it.tc_gpu_ms ?? 0)} on Tensor Cores`) +
      (it.in_range ? "" : " — outside the aggregation range");
    bar.append(title);
    chart.append(bar);
    if (it.gpu_ms !== null && it.in_range) {
      const g = (it.gpu_ms / top) * (height - 4);
      chart.append(svg("rect", { x, y: height - g, width: w, height: g, fill: CATEGORY.kernels, "pointer-events": "none" }));
      const t = ((it.tc_gpu_ms ?? 0) / top) * (height - 4);
      chart.append(svg("rect", { x, y: height - t, width: w, height: t, fill: CATEGORY.tc, "pointer-events": "none" }));
    }
  });
  for (const edge of [data.range[0], data.range[1] + 1]) {
    chart.append(svg("line", { x1: edge * step, x2: edge * step, y1: 0, y2: height, stroke: "#000", "stroke-width": 2, class: "dld-d-edge" }));
  }
  const controls = el("div", "dld-d-toolbar");
  const field = (label: string, value: number, cls: string) => {
    const input = el("input", `dld-d-${cls}`);
    input.type = "number";
    input.min = "0";
    input.max = String(Math.max(data.iterations.length - 1, 0));
    input.value = String(value);
    const wrap = el("label", "", `${label} `);
    wrap.append(input);
    controls.append(wrap);
    return input;
  };
  const start = field("Start iteration", data.range[0], "start");
  const stop = field("Stop iteration", data.range[1], "stop");
  const apply = el("button", "dld-d-apply", "Reaggregate");
  apply.type = "button";
  apply.onclick = () => onRange(Number(start.value), Number(stop.value));
  const badges = el("span", "dld-d-badges",
    `Total ${data.iterations.length} · Profiled ${data.range[1] - data.range[0] + 1} · Start ${data.range[0]} · Stop ${data.range[1]}` +
    (data.warmup_passes ? ` · +${data.warmup_passes} warm-up not shown` : ""));
  controls.append(apply, badges);
  const legend = el("div", "dld-r-legend", `bar height: pass wall time (tallest ${ms(top)}); slate: counted, light grey: outside the range` +
    (data.has_kernels ? " · blue: its kernels' GPU time · green: Tensor Core kernels" : "") + " · black: range bounds");
  root.append(controls, chart, legend);
  return root;
}
