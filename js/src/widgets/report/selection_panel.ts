/**
 * The selection summary above the layer table (seed 000): for each discrete column its most common value(s), with
 * a tooltip listing every value by descending frequency; for the time columns min / max / mean / total.
 */
import { ReportData } from "./data";
import { el, ms } from "./format";
import { showsProvider } from "./csv";
import { SelectionSummary, summarizeSelection, ValueCounts } from "./stats";

const LABELS: Record<string, string> = {
  type: "Type", precision: "Precision", provider: "Execution Provider", input_dims: "Input Dimensions", output_dims: "Output Dimensions",
};

export class SelectionPanel {
  readonly root = el("div", "dld-r-selsum");
  last: SelectionSummary | null = null;

  constructor(host: HTMLElement, private readonly data: ReportData) {
    host.appendChild(this.root);
  }

  private discrete(v: ValueCounts): HTMLElement {
    const cell = el("div", "dld-r-selsum-cell");
    cell.dataset.column = v.column;
    cell.append(el("div", "dld-r-selsum-label", LABELS[v.column] ?? v.column));
    const value = el("div", "dld-r-selsum-value", v.mostCommon.map((x) => x || "(empty)").join(", "));
    const top = v.counts[0]?.[1] ?? 0;
    const more = v.counts.length - v.mostCommon.length;
    const all = v.counts.map(([x, n]) => `${x || "(empty)"} × ${n}`).join("\n");
    value.title = all;
    cell.append(value);
    const note = el("div", "dld-r-selsum-note", `${top} of ${v.counts.reduce((a, [, n]) => a + n, 0)}${more > 0 ? ` · ${more} other value${more > 1 ? "s" : ""}` : ""}`);
    const info = el("span", "dld-r-info", "i");
    info.title = all; // every value by descending frequency
    note.append(info);
    cell.append(note);
    return cell;
  }

  private time(label: string, column: string, s: { min: number; max: number; mean: number; total: number }, unit: (v: number) => string): HTMLElement {
    const cell = el("div", "dld-r-selsum-cell time");
    cell.dataset.column = column;
    cell.append(el("div", "dld-r-selsum-label", label));
    const grid = el("div", "dld-r-selsum-times");
    for (const [k, v] of [["min", s.min], ["max", s.max], ["mean", s.mean], ["total", s.total]] as [string, number][]) {
      const item = el("span", "", `${k} ${unit(v)}`);
      item.dataset.stat = k;
      item.dataset.value = String(v);
      grid.append(item);
    }
    cell.append(grid);
    return cell;
  }

  update(selected: number[], fullPass: boolean): SelectionSummary {
    const s = summarizeSelection(this.data, selected, fullPass);
    this.last = s;
    const head = el("div", "dld-r-selsum-head", selected.length > 1 ? `Selection: ${s.count} layers` : `All layers (${s.count}) · select several rows to summarize them`);
    const cells = ["type", "precision", ...(showsProvider(this.data) ? ["provider"] : []), "input_dims", "output_dims"].map((c) => this.discrete(s.discrete[c]));
    // Each value carries its own unit (µs under a millisecond): a "(ms)" in the label read as ms over µs values.
    cells.push(this.time("Inference Time", "median_ms", s.times.median_ms, ms));
    cells.push(this.time(`Inference Time (% of ${fullPass ? "pass" : "layers"})`, "percent", s.times.percent, (v) => `${v.toFixed(2)}%`));
    const grid = el("div", "dld-r-selsum-grid");
    grid.append(...cells);
    this.root.replaceChildren(head, grid);
    this.root.dataset.count = String(s.count);
    return s;
  }
}
