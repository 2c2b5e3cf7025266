/**
 * Layer baselines (seed 001 "Inference Report"): Add Baseline at the top of a report makes the selected layers
 * baselines, each with its own colour that every chart uses for it (the layer metrics chart, a mark on the latency
 * and precision charts, an outline on the timeline); Clear Baseline removes them all. The selected layer itself is
 * drawn in grey beside them, so "select a layer" shows its metrics against the baselines. In the viewer's main report
 * the list is the widget's `layer_baselines` (Python: `viewer.add_baseline()`, `viewer.clear_baselines()`).
 */
import { ViewContext } from "./context";
import { ReportData, text } from "./data";
import { el, ms } from "./format";

// Paul Tol's bright scheme: apart from the reports' Okabe-Ito colours and readable with colour-vision deficiencies.
export const BASELINE_COLOURS = ["#EE6677", "#228833", "#4477AA", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB"];
export const SELECTED_COLOUR = "#6b7280";
const SVG = "http://www.w3.org/2000/svg";

export interface BaselineMark { layer: number; colour: string; label: string }

export class Baselines {
  readonly root = el("div", "dld-r-baselines");
  layers: number[] = [];
  private listeners: (() => void)[] = [];
  private readonly chips = el("span", "dld-r-baseline-chips");

  constructor(host: HTMLElement, private readonly ctx: ViewContext, private readonly data: ReportData, private readonly selected: () => number[], private readonly sync: boolean) {
    const add = el("button", "dld-r-button dld-r-add-baseline", "Add Baseline");
    const clear = el("button", "dld-r-button dld-r-clear-baseline", "Clear Baseline");
    add.type = clear.type = "button";
    add.title = "Make the selected layers baselines: each gets a colour used in every chart";
    clear.title = "Remove every layer baseline";
    ctx.listeners.dom(add, "click", () => this.set([...this.layers, ...this.selected().filter((p) => !this.layers.includes(p))]));
    ctx.listeners.dom(clear, "click", () => this.set([]));
    this.root.append(el("span", "dld-r-baselines-label", "Layer baselines:"), add, clear, this.chips);
    host.append(this.root);
    if (sync) {
      this.layers = this.valid((ctx.model.get("layer_baselines") as number[]) ?? []);
      ctx.listeners.model(ctx.model, "change:layer_baselines", () => { this.layers = this.valid((ctx.model.get("layer_baselines") as number[]) ?? []); this.changed(); });
    }
    this.renderChips();
  }

  private valid(layers: number[]): number[] {
    return layers.filter((p, i) => p >= 0 && p < this.data.layers.count && layers.indexOf(p) === i);
  }

  set(layers: number[]): void {
    this.layers = this.valid(layers);
    if (this.sync) { this.ctx.model.set("layer_baselines", [...this.layers]); this.ctx.model.save_changes(); }
    this.changed();
  }

  onChange(listener: () => void): void { this.listeners.push(listener); }

  colour(k: number): string { return BASELINE_COLOURS[k % BASELINE_COLOURS.length]; }

  marks(): BaselineMark[] {
    return this.layers.map((layer, k) => ({ layer, colour: this.colour(k), label: this.data.layers.name[layer] }));
  }

  private changed(): void {
    this.renderChips();
    for (const listener of this.listeners) listener();
  }

  private renderChips(): void {
    this.chips.replaceChildren(...this.marks().map((m) => {
      const chip = el("span", "dld-r-baseline-chip", m.label);
      chip.style.borderLeft = `10px solid ${m.colour}`;
      chip.dataset.layer = String(m.layer);
      chip.dataset.colour = m.colour;
      chip.title = `${m.label} (${text(this.data.layers.type, m.layer)})`;
      return chip;
    }));
    this.root.dataset.count = String(this.layers.length);
  }
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

export interface Series { label: string; colour: string; values: number[] }

/** Grouped horizontal bars: one group per metric, one bar per series in its colour (values in ms). */
export function groupedBars(metrics: string[], series: Series[], className: string): SVGSVGElement {
  const n = Math.max(1, series.length);
  const bar = 12;
  const rowH = bar * n + 8;
  const left = 90;
  const width = 460;
  const height = 10 + metrics.length * rowH + 20;
  let max = 0;
  for (const s of series) for (const v of s.values) if (Number.isFinite(v)) max = Math.max(max, v);
  max = max || 1;
  const X = (v: number) => left + (v / max) * (width - left - 70);
  const s = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", class: className });
  metrics.forEach((metric, i) => {
    const y = 8 + i * rowH;
    svg("text", { x: left - 6, y: y + rowH / 2, "font-size": 11, "text-anchor": "end", "dominant-baseline": "middle", fill: "#111827" }, s).textContent = metric;
    series.forEach((one, r) => {
      const v = one.values[i];
      if (!Number.isFinite(v)) return;
      const rect = svg("rect", { x: left, y: y + 3 + r * bar, width: Math.max(0.5, X(v) - left), height: bar - 2, fill: one.colour, class: "dld-r-bar" }, s);
      rect.dataset.series = one.label;
      rect.dataset.colour = one.colour;
      svg("title", {}, rect).textContent = `${one.label} · ${metric}: ${ms(v)}`;
      svg("text", { x: X(v) + 4, y: y + 3 + r * bar + bar / 2, "font-size": 10, "dominant-baseline": "middle", fill: "#374151" }, s).textContent = ms(v);
    });
  });
  return s;
}

export function legend(series: Series[]): HTMLElement {
  const box = el("div", "dld-r-legend");
  for (const one of series) {
    const key = el("i");
    key.style.background = one.colour;
    box.append(key, document.createTextNode(one.label.length > 40 ? `${one.label.slice(0, 39)}…` : one.label));
  }
  return box;
}

/** "Layer metrics": the selected layer (grey) and every baseline layer (its colour), median/mean/min/max. */
export class LayerMetricsChart {
  readonly root = el("div", "dld-r-chart dld-r-layer-metrics");
  private readonly plot = el("div");
  private selected: number[] = [];

  constructor(host: HTMLElement, private readonly data: ReportData, private readonly baselines: Baselines) {
    this.root.append(el("div", "dld-r-chart-head", "Layer metrics (selected layer and baselines)"), this.plot);
    host.append(this.root);
    baselines.onChange(() => this.render());
    this.render();
  }

  select(layers: number[]): void {
    this.selected = layers;
    this.render();
  }

  render(): void {
    const L = this.data.layers;
    const series: Series[] = [];
    const pick = this.selected.length === 1 && !this.baselines.layers.includes(this.selected[0]) ? this.selected[0] : -1;
    if (pick >= 0) series.push({ label: `${L.name[pick]} (selected)`, colour: SELECTED_COLOUR, values: [L.median[pick], L.mean[pick], L.min[pick], L.max[pick]] });
    for (const m of this.baselines.marks()) series.push({ label: m.label, colour: m.colour, values: [L.median[m.layer], L.mean[m.layer], L.min[m.layer], L.max[m.layer]] });
    if (!series.length) {
      this.plot.replaceChildren(el("div", "dld-r-empty", "Select a layer in the table to see its metrics; Add Baseline keeps it to compare with others."));
      return;
    }
    this.plot.replaceChildren(legend(series), groupedBars(["median", "mean", "min", "max"], series, "dld-r-layer-metrics-svg"));
  }
}
