/**
 * The layer table of one report (seed 000 "Network Metrics and Layer Table"): toolbar (name filter, heat colours,
 * full-pass percentages, CSV export), the selection summary, and the virtualized rows. Filtering and sorting run
 * here in the browser (a keystroke must not wait for the kernel); the filter, toggles and selection are synced to
 * Python (`viewer.filter`, `.heat`, `.full_pass`, `.selection`) when this is the viewer's main table.
 */
import { ViewContext } from "./context";
import { ReportData, text } from "./data";
import { download, showsProvider, toCsv } from "./csv";
import { el, msCell, pctCell } from "./format";
import { HeatScheme, SCHEMES } from "./heat";
import { Links } from "./links";
import { Menu } from "./menu";
import { SelectionPanel } from "./selection_panel";
import { percentOf } from "./stats";
import { ColumnDef, VirtualTable } from "./vtable";

export interface LayerTableOptions {
  reportIndex: number;
  syncModel: boolean; // this table's state is the widget's synced state
  onActivate(pos: number): void; // double-click: zoom the timeline to the layer
  onSelection(selected: number[]): void;
}

export class LayerTable {
  readonly root = el("div", "dld-r-table");
  readonly table: VirtualTable;
  readonly panel: SelectionPanel;
  readonly links: Links;
  private readonly input = el("input", "dld-r-filter");
  private readonly count = el("span", "dld-r-count");
  private readonly heatBox = el("input");
  private readonly fullBox = el("input");
  private readonly scheme = el("select", "dld-r-scheme");
  private needle = "";
  fullPass = false;
  private order: number[] = [];
  private maxMs = 0;

  constructor(host: HTMLElement, private readonly ctx: ViewContext, private readonly data: ReportData, menu: Menu, private readonly options: LayerTableOptions) {
    host.appendChild(this.root);
    const L = data.layers;
    for (let i = 0; i < L.count; i++) this.maxMs = Math.max(this.maxMs, L.median[i]);
    this.root.append(this.toolbar());
    this.panel = new SelectionPanel(this.root, data);
    this.links = new Links(ctx, data, options.reportIndex, menu);
    this.table = new VirtualTable(this.root, ctx.listeners, 330);
    this.table.setColumns(this.columns());
    this.table.sortKey = "#";
    this.table.onSort = (key) => this.sort(key);
    this.table.onActivate = (pos) => options.onActivate(pos);
    this.table.onCellClick = (pos, target) => this.links.click(pos, target);
    this.table.onSelect = (selected) => this.selected(selected);
    this.order = Array.from({ length: L.count }, (_, i) => i);
    const m = ctx.model;
    const initial = options.syncModel;
    this.needle = initial ? String(m.get("filter") ?? "").toLowerCase() : "";
    this.input.value = initial ? String(m.get("filter") ?? "") : "";
    this.fullPass = initial ? Boolean(m.get("full_pass")) : false;
    this.table.heatOn = initial ? m.get("heat") !== false : true;
    this.heatBox.checked = this.table.heatOn;
    this.fullBox.checked = this.fullPass;
    this.apply();
    const sel = initial ? ((m.get("selection") as number[]) ?? []) : [];
    this.table.setSelection(sel.filter((p) => p >= 0 && p < L.count));
    this.panel.update([...this.table.selection], this.fullPass);
    if (options.syncModel) this.syncFromModel();
  }

  private toolbar(): HTMLElement {
    const bar = el("div", "dld-r-toolbar");
    const lis = this.ctx.listeners;
    this.input.type = "search";
    this.input.placeholder = "Filter by layer name";
    this.input.setAttribute("aria-label", "Filter by layer name");
    lis.dom(this.input, "input", () => this.setFilter(this.input.value, true));
    this.heatBox.type = "checkbox";
    lis.dom(this.heatBox, "change", () => this.setHeat(this.heatBox.checked, true));
    this.fullBox.type = "checkbox";
    lis.dom(this.fullBox, "change", () => this.setFullPass(this.fullBox.checked, true));
    for (const s of SCHEMES) this.scheme.append(new Option(s, s));
    this.scheme.title = "Heat colour scale (colour-blind safe)";
    lis.dom(this.scheme, "change", () => {
      this.table.scheme = this.scheme.value as HeatScheme;
      this.table.render();
    });
    const label = (box: HTMLElement, textContent: string, cls: string) => {
      const l = el("label", cls);
      l.append(box, document.createTextNode(` ${textContent}`));
      return l;
    };
    const csv = el("button", "dld-r-csv", "Export CSV");
    csv.type = "button";
    csv.title = "Download the rows shown (filter applied) as CSV";
    lis.dom(csv, "click", () => this.exportCsv());
    bar.append(this.input, this.count, label(this.heatBox, "Heat colours", "dld-r-heat"), this.scheme,
      label(this.fullBox, "Use full pass time in percentages", "dld-r-fullpass"), csv);
    return bar;
  }

  private columns(): ColumnDef[] {
    const d = this.data;
    const L = d.layers;
    const cols: ColumnDef[] = [
      { key: "#", label: "#", width: 44, numeric: true, text: (p) => String(L.index[p]), sortValue: (p) => L.index[p] },
      { key: "name", label: "Name", width: 200, flex: true, text: (p) => L.name[p], cell: (p, c) => this.links.cell(p, c), title: (p) => L.name[p] },
      { key: "type", label: "Type", width: 100, text: (p) => text(L.type, p) },
      { key: "input_dims", label: "Input Dims", width: 120, text: (p) => text(L.inputDims, p) },
      { key: "output_dims", label: "Output Dims", width: 100, text: (p) => text(L.outputDims, p) },
    ];
    if (showsProvider(d)) cols.push({ key: "provider", label: "Execution Provider", width: 140, text: (p) => text(L.provider, p) });
    cols.push(
      { key: "precision", label: "Precision", width: 64, text: (p) => text(L.precision, p) },
      { key: "percent", label: "Time %", width: 72, numeric: true, text: (p) => pctCell(percentOf(d, p, this.fullPass)), sortValue: (p) => L.median[p], heat: (p) => (this.maxMs > 0 ? L.median[p] / this.maxMs : 0) },
      { key: "ms", label: "Time ms", width: 80, numeric: true, text: (p) => msCell(L.median[p]), sortValue: (p) => L.median[p], heat: (p) => (this.maxMs > 0 ? L.median[p] / this.maxMs : 0), title: (p) => `${L.median[p]} ms (mean ${L.mean[p]}, min ${L.min[p]}, max ${L.max[p]})` },
    );
    return cols;
  }

  private sort(key: string): void {
    const t = this.table;
    t.sortDescending = t.sortKey === key ? !t.sortDescending : key === "percent" || key === "ms";
    t.sortKey = key;
    const col = this.columns().find((c) => c.key === key);
    if (!col) return;
    const value = col.sortValue ?? col.text;
    const L = this.data.layers;
    const keys = Array.from({ length: L.count }, (_, i) => value(i));
    const sign = t.sortDescending ? -1 : 1;
    this.order = Array.from({ length: L.count }, (_, i) => i).sort((a, b) => {
      const x = keys[a];
      const y = keys[b];
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return sign * c || L.index[a] - L.index[b];
    });
    this.apply();
  }

  /** The rows shown: the sorted order, filtered by name (case-insensitive substring). */
  apply(): void {
    const lower = this.data.layers.lower;
    const needle = this.needle;
    const rows = needle ? this.order.filter((p) => lower[p].includes(needle)) : this.order;
    this.table.setRows(rows);
    this.count.textContent = needle ? `${rows.length} of ${this.data.layers.count} layers` : `${rows.length} layers`;
  }

  setFilter(value: string, fromUser: boolean): void {
    this.needle = value.toLowerCase();
    if (this.input.value !== value) this.input.value = value;
    this.apply();
    if (fromUser && this.options.syncModel) this.save("filter", value);
  }

  setHeat(on: boolean, fromUser: boolean): void {
    this.table.heatOn = on;
    this.heatBox.checked = on;
    this.table.render();
    if (fromUser && this.options.syncModel) this.save("heat", on);
  }

  setFullPass(on: boolean, fromUser: boolean): void {
    this.fullPass = on;
    this.fullBox.checked = on;
    this.table.render();
    this.panel.update([...this.table.selection], on);
    if (fromUser && this.options.syncModel) this.save("full_pass", on);
  }

  private saveTimer = 0;
  private pending: Record<string, unknown> = {};

  /** Debounced write to the synced state: the kernel hears about a burst of keystrokes once. */
  private save(key: string, value: unknown): void {
    this.pending[key] = value;
    clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => {
      for (const [k, v] of Object.entries(this.pending)) this.ctx.model.set(k, v);
      this.pending = {};
      this.ctx.model.save_changes();
    }, 150);
  }

  private selected(selected: number[]): void {
    this.panel.update(selected, this.fullPass);
    this.options.onSelection(selected);
    if (this.options.syncModel) this.save("selection", selected);
  }

  /** Select `positions` (from the timeline or a recommendation) and show the first. */
  select(positions: number[]): void {
    this.table.setSelection(positions);
    if (positions.length) this.table.scrollTo(positions[0]);
    this.panel.update(positions, this.fullPass);
    this.options.onSelection(positions);
    if (this.options.syncModel) this.save("selection", positions);
  }

  exportCsv(): string {
    const rows = [...this.table.rows].sort((a, b) => a - b); // inference order, as viewer.to_csv(rows="filtered")
    const csv = toCsv(this.data, rows, this.fullPass);
    const stem = (this.data.summary.model || "report").replace(/[^\w.-]+/g, "_");
    download(`${stem}.layers.csv`, csv);
    return csv;
  }

  private syncFromModel(): void {
    const m = this.ctx.model;
    const lis = this.ctx.listeners;
    lis.model(m, "change:filter", () => {
      const v = String(m.get("filter") ?? "");
      if (v !== this.input.value && !("filter" in this.pending)) this.setFilter(v, false);
    });
    lis.model(m, "change:heat", () => this.setHeat(m.get("heat") !== false, false));
    lis.model(m, "change:full_pass", () => this.setFullPass(Boolean(m.get("full_pass")), false));
    lis.model(m, "change:selection", () => {
      if ("selection" in this.pending) return;
      const sel = ((m.get("selection") as number[]) ?? []).filter((p) => p >= 0 && p < this.data.layers.count);
      this.table.setSelection(sel);
      this.panel.update(sel, this.fullPass);
      this.options.onSelection(sel);
    });
    lis.add(() => clearTimeout(this.saveTimer));
  }
}
