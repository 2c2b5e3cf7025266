/**
 * Several reports side by side (seed 001 "Compare Inference Reports"): each report keeps its colour; a summary row
 * per report; layers paired by name or through the networks (dld_jupyter/reports/compare.py, a Paired column) with each report's time and the
 * difference against the baseline (chosen here: the kernel recomputes the matching, `viewer.baseline`); latency
 * per type in every report's colour and the precision rings per report. Each report also has its full view in a
 * tab, built the first time it is opened.
 */
import { LatencyChart, PrecisionChart } from "./charts";
import { groupedBars, legend, Series } from "./baselines";
import { ViewContext } from "./context";
import { CompareData, ReportData } from "./data";
import { el, ms, msCell } from "./format";
import { Menu } from "./menu";
import { ReportView } from "./report_view";
import { ColumnDef, VirtualTable } from "./vtable";

function summaryTable(ctx: ViewContext, c: CompareData): HTMLElement {
  const table = el("table", "dld-r-cmp-summary");
  const head = el("tr");
  for (const h of ["", "Report", "Backend", "Provider / device", "Target", "Median", "Passes", "Layers", "Sum of layers", "Stable", "vs baseline"]) head.append(el("th", "", h));
  table.append(head);
  c.summaries.forEach((s, i) => {
    const tr = el("tr", i === c.baseline ? "baseline" : "");
    const sw = el("td");
    const swatch = el("span", "dld-r-swatch");
    swatch.style.background = s.colour;
    sw.append(swatch);
    const diff = i === c.baseline ? "baseline" : `${s.diff_ms >= 0 ? "+" : ""}${ms(s.diff_ms)}${s.diff_percent == null ? "" : ` (${s.diff_percent >= 0 ? "+" : ""}${s.diff_percent.toFixed(1)}%)`}`;
    const cells = [s.label, s.backend, `${s.provider}${s.device && s.device !== s.provider ? ` · ${s.device}` : ""}`, s.target ?? "–", ms(s.median_ms), String(s.passes), String(s.layers), ms(s.layer_sum_ms), s.stable ? "✓" : "⚠", diff];
    tr.append(sw, ...cells.map((x) => el("td", "", x)));
    (tr.lastChild as HTMLElement).className = i === c.baseline ? "" : s.diff_ms > 0 ? "slower" : "faster";
    table.append(tr);
  });
  const wrap = el("div", "dld-r-cmp-head");
  const pick = el("select", "dld-r-baseline");
  c.summaries.forEach((s, i) => pick.append(new Option(s.label, String(i), false, i === c.baseline)));
  ctx.listeners.dom(pick, "change", () => {
    ctx.model.set("baseline", Number(pick.value));
    ctx.model.save_changes();
  });
  const label = el("label", "", "Baseline: ");
  label.append(pick);
  wrap.append(label, table);
  return wrap;
}

/** Network metrics across the compared reports (seed 001): median, p90, min and max pass time, each report in
 * its colour. */
function networkChart(reports: ReportData[]): HTMLElement {
  const box = el("div", "dld-r-chart dld-r-network-metrics");
  const series: Series[] = reports.map((r) => ({
    // a spread the report did not measure (a trtexec import without --times holds 0) has no bar
    label: r.label, colour: r.colour, values: [r.summary.median_ms, ...[r.summary.p90_ms, r.summary.min_ms, r.summary.max_ms].map((v) => (v > 0 ? v : NaN))],
  }));
  box.append(el("div", "dld-r-chart-head", "Network metrics (pass time)"), legend(series), groupedBars(["median", "p90", "min", "max"], series, "dld-r-network-svg"));
  return box;
}

/** The selected rows' time in every compared report (seed 001: "select any layer to see its metrics across
 * reports"), each report in its colour; a report without the layer has no bar. */
class AcrossReports {
  readonly root = el("div", "dld-r-chart dld-r-across");
  private readonly plot = el("div");

  constructor(host: HTMLElement, private readonly c: CompareData, private readonly reports: ReportData[]) {
    this.root.append(el("div", "dld-r-chart-head", "Selected layers across reports (median time)"), this.plot);
    host.append(this.root);
    this.render([]);
  }

  render(rows: number[]): void {
    const shown = rows.slice(0, 6);
    if (!shown.length) {
      this.plot.replaceChildren(el("div", "dld-r-empty", "Select a layer in the table to see its time in every report."));
      return;
    }
    const series: Series[] = this.reports.map((r, i) => ({
      label: r.label, colour: r.colour, values: shown.map((p) => (Number.isNaN(this.c.times[i][p]) ? NaN : this.c.times[i][p])),
    }));
    const names = shown.map((p) => (this.c.name[p].length > 14 ? `…${this.c.name[p].slice(-13)}` : this.c.name[p])); // names differ at their end
    this.plot.replaceChildren(legend(series), groupedBars(names, series, "dld-r-across-svg"));
    this.root.dataset.rows = shown.join(",");
  }
}

/** Row `p` is present in two or more reports (position -1 where a report lacks it). */
const inTwo = (c: CompareData, p: number): boolean => c.positions.filter((column) => column[p] >= 0).length >= 2;

function layerTable(host: HTMLElement, ctx: ViewContext, c: CompareData, reports: ReportData[], across: AcrossReports): void {
  const bar = el("div", "dld-r-toolbar");
  const input = el("input", "dld-r-filter");
  input.type = "search";
  input.placeholder = "Filter by layer name";
  const count = el("span", "dld-r-count");
  bar.append(input, count);
  host.append(el("div", "dld-r-section-title", "Layers paired by name or by the networks' structure"), bar);
  for (const note of c.notes) host.append(el("div", "dld-r-note", `Note: ${note}`));
  const table = new VirtualTable(host, ctx.listeners, 300);
  table.onSelect = (selected) => across.render(selected);
  const cols: ColumnDef[] = [
    { key: "name", label: "Name", width: 280, flex: true, text: (p) => c.name[p] },
    { key: "type", label: "Type", width: 120, text: (p) => c.type[p] },
    { key: "paired", label: "Paired", width: 80, text: (p) => c.paired[p] },
  ];
  const maxAbs = Math.max(1e-12, ...c.diffs.map((d) => d.reduce((a, v) => (Number.isNaN(v) ? a : Math.max(a, Math.abs(v))), 0)));
  reports.forEach((r, i) => {
    cols.push({ key: `t${i}`, label: `${r.label} ms`, width: 110, numeric: true, text: (p) => (Number.isNaN(c.times[i][p]) ? "—" : msCell(c.times[i][p])), sortValue: (p) => (Number.isNaN(c.times[i][p]) ? -1 : c.times[i][p]) });
  });
  reports.forEach((r, i) => {
    if (i === c.baseline) return;
    cols.push({
      key: `d${i}`, label: `Δ ${r.label}`, width: 110, numeric: true,
      text: (p) => (Number.isNaN(c.diffs[i][p]) ? "—" : `${c.diffs[i][p] >= 0 ? "+" : ""}${msCell(c.diffs[i][p])}`),
      sortValue: (p) => (Number.isNaN(c.diffs[i][p]) ? 0 : c.diffs[i][p]),
      cell: (p, cell) => {
        const d = c.diffs[i][p];
        cell.textContent = Number.isNaN(d) ? "—" : `${d >= 0 ? "+" : ""}${msCell(d)}`;
        // Diverging orange (slower) / blue (faster): readable with the common colour-vision deficiencies.
        const a = Number.isNaN(d) ? 0 : Math.min(1, Math.abs(d) / maxAbs);
        cell.style.background = d > 0 ? `rgba(230,159,0,${0.15 + 0.6 * a})` : d < 0 ? `rgba(0,114,178,${0.15 + 0.6 * a})` : "";
      },
    });
  });
  table.setColumns(cols);
  let order = Array.from({ length: c.count }, (_, i) => i);
  let needle = "";
  const apply = () => {
    const rows = needle ? order.filter((p) => c.lower[p].includes(needle)) : order;
    table.setRows(rows);
    // Rows are not all matches: a layer only one report has is a row too. Count the truly matched ones.
    const shown = needle ? rows.filter((p) => inTwo(c, p)).length : c.matchedCount;
    const only = c.count - c.matchedCount;
    count.textContent = needle
      ? `${shown} of ${c.matchedCount} matched layers` + (rows.length === shown ? "" : ` · ${rows.length} rows`)
      : `${c.matchedCount} matched layers` + (only ? ` · ${c.count} rows (${only} in one report only)` : "");
  };
  table.onSort = (key) => {
    const col = cols.find((x) => x.key === key);
    if (!col) return;
    table.sortDescending = table.sortKey === key ? !table.sortDescending : key !== "name" && key !== "type" && key !== "paired";
    table.sortKey = key;
    const v = col.sortValue ?? col.text;
    const sign = table.sortDescending ? -1 : 1;
    order = Array.from({ length: c.count }, (_, i) => i).sort((a, b) => {
      const x = v(a);
      const y = v(b);
      return sign * (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) || a - b;
    });
    apply();
  };
  ctx.listeners.dom(input, "input", () => { needle = input.value.toLowerCase(); apply(); });
  apply();
}

export class CompareView {
  readonly root = el("div", "dld-r-compare");
  private readonly views = new Map<number, HTMLElement>();

  constructor(host: HTMLElement, private readonly ctx: ViewContext, private readonly reports: ReportData[], c: CompareData, private readonly menu: Menu) {
    host.appendChild(this.root);
    const tabs = el("div", "dld-r-tabs");
    const pages = el("div", "dld-r-pages");
    const main = el("div", "dld-r-page");
    main.append(summaryTable(ctx, c));
    main.append(networkChart(reports));
    const acrossHost = el("div", "dld-r-charts");
    const across = new AcrossReports(acrossHost, c, reports);
    layerTable(main, ctx, c, reports, across);
    main.append(acrossHost);
    const charts = el("div", "dld-r-charts");
    new LatencyChart(charts, ctx, reports);
    reports.forEach((r) => new PrecisionChart(charts, r, `Precision per layer type · ${r.label}`));
    main.append(charts);
    pages.append(main);
    const names = ["Comparison", ...reports.map((r) => r.label)];
    const buttons = names.map((name, i) => {
      const b = el("button", `dld-r-tab${i === 0 ? " active" : ""}`, name);
      b.type = "button";
      if (i > 0) b.style.borderTop = `3px solid ${reports[i - 1].colour}`;
      ctx.listeners.dom(b, "click", () => {
        buttons.forEach((x) => x.classList.toggle("active", x === b));
        for (const page of pages.children) (page as HTMLElement).style.display = "none";
        (i === 0 ? main : this.view(i - 1, pages)).style.display = "";
      });
      return b;
    });
    tabs.append(...buttons);
    this.root.append(tabs, pages);
  }

  private view(i: number, pages: HTMLElement): HTMLElement {
    let page = this.views.get(i);
    if (!page) {
      page = el("div", "dld-r-page");
      pages.append(page);
      new ReportView(page, this.ctx, this.reports[i], i, this.menu, false);
      this.views.set(i, page);
    }
    return page;
  }
}
