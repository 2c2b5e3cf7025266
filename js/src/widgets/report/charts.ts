/**
 * The report charts, drawn as SVG inside the widget (no Plotly on the way to the first paint: Plotly's bundle and
 * first render cost seconds here, see shared/BROWSER.md; `viewer.figures()` gives Plotly figures on demand):
 * average latency per layer type (ms or % of layer time, optional grid lines; grouped bars in each report's colour
 * when comparing) and precision per layer type (two rings: types inside, their precisions outside).
 */
import { ViewContext } from "./context";
import { ReportData } from "./data";
import { el, ms } from "./format";
import { precisionByType, timeByType } from "./stats";

const SVG = "http://www.w3.org/2000/svg";
// Okabe-Ito and Tol's muted palette: types are told apart by colour-blind users too.
const TYPE_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#AA4499", "#882255", "#661100"];
const PRECISION_COLOURS: Record<string, string> = { FP32: "#0072B2", FP16: "#E69F00", BF16: "#D55E00", INT8: "#009E73", FP8: "#CC79A7", INT32: "#56B4E9", INT64: "#332288", BOOL: "#999933", "N/A": "#bbbbbb" };

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

function tip(e: Element, textContent: string): void {
  svg("title", {}, e).textContent = textContent;
}

/** A layer baseline drawn on a chart: its type (and precision) and time, in its colour. */
export interface LayerMark { type: string; precision: string; ms: number; percent: number; colour: string; label: string }

export class LatencyChart {
  readonly root = el("div", "dld-r-chart dld-r-latency");
  private percent = false;
  private marks: LayerMark[] = [];
  private grid = true;
  private readonly plot = el("div");

  constructor(host: HTMLElement, ctx: ViewContext, private readonly reports: ReportData[]) {
    const head = el("div", "dld-r-chart-head", "Average latency per layer type");
    const unit = el("select", "dld-r-chart-unit");
    unit.append(new Option("ms", "ms"), new Option("% of layer time", "%"));
    const grid = el("label", "dld-r-chart-grid");
    const box = el("input");
    box.type = "checkbox";
    box.checked = true;
    grid.append(box, document.createTextNode(" grid lines"));
    ctx.listeners.dom(unit, "change", () => { this.percent = unit.value === "%"; this.render(); });
    ctx.listeners.dom(box, "change", () => { this.grid = box.checked; this.render(); });
    head.append(unit, grid);
    this.root.append(head, this.plot);
    host.appendChild(this.root);
    this.render();
  }

  render(): void {
    const per = this.reports.map((r) => new Map(timeByType(r).map((t) => [t.type, t])));
    const types = timeByType(this.reports[0]).map((t) => t.type);
    for (const m of per) for (const k of m.keys()) if (!types.includes(k)) types.push(k);
    const n = this.reports.length;
    const bar = n > 1 ? 9 : 14;
    const rowH = bar * n + 6;
    const left = 130;
    const width = 460;
    const height = 24 + types.length * rowH + 22;
    const value = (r: number, t: string) => { const x = per[r].get(t); return x ? (this.percent ? x.meanPercent : x.meanMs) : 0; };
    let max = 0;
    for (let r = 0; r < n; r++) for (const t of types) max = Math.max(max, value(r, t));
    for (const m of this.marks) max = Math.max(max, this.percent ? m.percent : m.ms); // a baseline slower than its type's mean
    max = max || 1;
    const s = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
    const X = (v: number) => left + (v / max) * (width - left - 60);
    for (let k = 0; k <= 4; k++) {
      const x = X((max * k) / 4);
      if (this.grid) svg("line", { x1: x, x2: x, y1: 20, y2: height - 20, stroke: "#e5e7eb" }, s);
      svg("text", { x, y: height - 6, "font-size": 10, "text-anchor": "middle", fill: "#4b5563" }, s).textContent = this.percent ? `${((max * k) / 4).toFixed(1)}%` : ms((max * k) / 4);
    }
    types.forEach((t, i) => {
      const y = 22 + i * rowH;
      const label = svg("text", { x: left - 6, y: y + rowH / 2, "font-size": 11, "text-anchor": "end", "dominant-baseline": "middle", fill: "#111827" }, s);
      label.textContent = t.length > 20 ? `${t.slice(0, 19)}…` : t;
      for (let r = 0; r < n; r++) {
        const x = per[r].get(t);
        const v = value(r, t);
        const rect = svg("rect", { x: left, y: y + 3 + r * bar, width: Math.max(0.5, X(v) - left), height: bar - 1, fill: this.reports[r].colour, class: "dld-r-bar" }, s);
        rect.dataset.type = t;
        rect.dataset.value = String(v);
        tip(rect, `${this.reports[r].label} · ${t}: mean ${ms(x?.meanMs ?? 0)} (${(x?.meanPercent ?? 0).toFixed(2)}% of layer time), ${x?.count ?? 0} layers, total ${ms(x?.totalMs ?? 0)}`);
        if (n === 1) svg("text", { x: X(v) + 4, y: y + 3 + bar / 2, "font-size": 10, "dominant-baseline": "middle", fill: "#374151" }, s).textContent = this.percent ? `${v.toFixed(2)}%` : ms(v);
      }
      for (const m of this.marks.filter((x) => x.type === t)) { // a baseline layer: a diamond at its own time
        const cx = X(this.percent ? m.percent : m.ms);
        const cy = y + rowH / 2;
        const d = svg("path", { d: `M${cx},${cy - 6}L${cx + 5},${cy}L${cx},${cy + 6}L${cx - 5},${cy}Z`, fill: m.colour, stroke: "#111827", "stroke-width": 0.8, class: "dld-r-baseline-mark" }, s);
        d.dataset.colour = m.colour;
        tip(d, `baseline ${m.label} (${t}): ${this.percent ? `${m.percent.toFixed(2)}%` : ms(m.ms)}`);
      }
    });
    this.plot.replaceChildren(s);
  }

  setMarks(marks: LayerMark[]): void {
    this.marks = marks;
    this.render();
  }
}

function arc(cx: number, cy: number, r0: number, r1: number, a0: number, a1: number): string {
  const sweep = Math.min(a1 - a0, Math.PI * 2 - 1e-6);
  const e = a0 + sweep;
  const large = sweep > Math.PI ? 1 : 0;
  const p = (r: number, a: number) => `${cx + r * Math.sin(a)},${cy - r * Math.cos(a)}`;
  return `M${p(r1, a0)}A${r1},${r1} 0 ${large} 1 ${p(r1, e)}L${p(r0, e)}A${r0},${r0} 0 ${large} 0 ${p(r0, a0)}Z`;
}

export class PrecisionChart {
  readonly root = el("div", "dld-r-chart dld-r-precision");
  private readonly segments = new Map<string, number>(); // "type|precision" -> middle angle of its outer segment
  private readonly markLayer: SVGGElement;

  constructor(host: HTMLElement, report: ReportData, title = "Precision per layer type") {
    const rows = precisionByType(report);
    const total = rows.reduce((a, r) => a + r.count, 0) || 1;
    const size = 220;
    const c = size / 2;
    const s = svg("svg", { width: size + 190, height: size, viewBox: `0 0 ${size + 190} ${size}`, role: "img" });
    let a = 0;
    const precisions: string[] = [];
    rows.forEach((row, i) => {
      const sweep = (row.count / total) * Math.PI * 2;
      const inner = svg("path", { d: arc(c, c, 38, 70, a, a + sweep), fill: TYPE_COLOURS[i % TYPE_COLOURS.length], stroke: "#fff", class: "dld-r-ring-type" }, s);
      inner.dataset.type = row.type;
      tip(inner, `${row.type}: ${row.count} layers`);
      let b = a;
      for (const [p, n] of row.precisions) {
        if (!precisions.includes(p)) precisions.push(p);
        const sw = (n / total) * Math.PI * 2;
        const outer = svg("path", { d: arc(c, c, 72, 104, b, b + sw), fill: PRECISION_COLOURS[p] ?? TYPE_COLOURS[(precisions.indexOf(p) + 5) % TYPE_COLOURS.length], stroke: "#fff", class: "dld-r-ring-precision" }, s);
        outer.dataset.precision = p;
        tip(outer, `${row.type} · ${p}: ${n} of ${row.count} layers`);
        this.segments.set(`${row.type}|${p}`, b + sw / 2);
        b += sw;
      }
      a += sweep;
    });
    const legend = (x: number, label: string, items: [string, string][]) => {
      svg("text", { x, y: 14, "font-size": 11, "font-weight": "bold" }, s).textContent = label;
      items.slice(0, 14).forEach(([name, colour], i) => {
        svg("rect", { x, y: 22 + i * 14, width: 10, height: 10, fill: colour }, s);
        svg("text", { x: x + 14, y: 31 + i * 14, "font-size": 10 }, s).textContent = name.length > 14 ? `${name.slice(0, 13)}…` : name;
      });
    };
    legend(size + 4, "Types", rows.map((r, i) => [r.type, TYPE_COLOURS[i % TYPE_COLOURS.length]]));
    legend(size + 104, "Precisions", precisions.map((p, i) => [p, PRECISION_COLOURS[p] ?? TYPE_COLOURS[(i + 5) % TYPE_COLOURS.length]]));
    this.markLayer = svg("g", { class: "dld-r-baseline-marks" }, s);
    this.root.append(el("div", "dld-r-chart-head", title), s);
    host.appendChild(this.root);
  }

  /** A dot per layer baseline on the segment of its type and precision, in its colour. */
  setMarks(marks: LayerMark[]): void {
    this.markLayer.replaceChildren();
    const c = 110;
    const seen = new Map<string, number>();
    for (const m of marks) {
      const key = `${m.type}|${m.precision}`;
      const a = this.segments.get(key);
      if (a === undefined) continue;
      const k = seen.get(key) ?? 0; // several baselines on one segment step outwards
      seen.set(key, k + 1);
      const r = 88 + (k % 3) * 7 - 7;
      const dot = svg("circle", { cx: c + r * Math.sin(a), cy: c - r * Math.cos(a), r: 5, fill: m.colour, stroke: "#111827", "stroke-width": 0.8, class: "dld-r-baseline-mark" }, this.markLayer);
      dot.dataset.colour = m.colour;
      tip(dot, `baseline ${m.label}: ${m.type} · ${m.precision}`);
    }
  }
}
