/**
 * The divergence overlay (Python half: dld_jupyter/widgets/canvas/overlays/divergence.py; designer.show_divergence,
 * check_against_original): paired nodes coloured red when past the tolerance and green within it, the first node
 * past it outlined, a collapsed group red when any node inside is past (its tooltip counts them). The legend names
 * the metric, the tolerance and the first node (a click focuses it); the table lists every compared output, sorted
 * by a click on any column header (again: reversed), and a click on a row focuses its node (the kernel expands its
 * groups). Sort order and the table's scroll are the browser's own.
 */
import type { NodeSingular } from "cytoscape";
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { OverlayKind } from "./base";
import { GroupCounts, MarkedOverlay, el, focusNode, groupMark, legendHead, paint, swatch } from "./marks";

type Num = number | string; // non-finite numbers travel as text ("inf", "nan")

export interface DivergenceRow {
  id: string | null;
  node: string;
  op: string;
  order: number;
  output: number;
  max_abs: Num;
  max_rel: Num;
  cosine: Num;
  sqnr: Num;
  nan: number;
  inf: number;
  over: boolean;
  value: Num;
  error: string | null;
  worst: boolean;
}

export interface DivergenceSetMessage extends OverlayMessage {
  source: string;
  metric: string;
  tolerance: number;
  headline: string;
  first: string | null;
  first_name: string | null;
  first_row: number | null; // the first row past the tolerance in execution order (rows' index)
  rows: DivergenceRow[];
  groups: GroupCounts;
}

export const COLUMNS: Array<[keyof DivergenceRow, string]> = [
  ["order", "#"], ["node", "Node"], ["op", "Op"], ["max_abs", "Max abs"], ["max_rel", "Max rel"],
  ["cosine", "Cosine"], ["sqnr", "SQNR dB"], ["nan", "NaN"], ["inf", "Inf"],
];

const num = (v: Num): number => (typeof v === "number" ? v : v === "inf" ? Infinity : v === "-inf" ? -Infinity : NaN);

export function formatCell(v: Num | string | number | boolean | null): string {
  if (typeof v !== "number") return v === null ? "" : String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v); // counts, orders
  return v !== 0 && (Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3) ? v.toExponential(2) : v.toPrecision(4);
}

/** Rows sorted by `key` (numbers numerically, NaN last; text by locale), `ascending` or not. */
export function sortRows(rows: DivergenceRow[], key: keyof DivergenceRow, ascending: boolean): DivergenceRow[] {
  const sign = ascending ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (typeof x === "string" && typeof y === "string" && key !== "max_abs" && key !== "max_rel" && key !== "cosine" && key !== "sqnr") {
      return sign * x.localeCompare(y);
    }
    const p = num(x as Num);
    const q = num(y as Num);
    if (Number.isNaN(p) || Number.isNaN(q)) return Number.isNaN(p) ? (Number.isNaN(q) ? 0 : 1) : -1;
    return sign * (p - q);
  });
}

export class DivergenceOverlay extends MarkedOverlay<DivergenceSetMessage> {
  sort: { key: keyof DivergenceRow; ascending: boolean } = { key: "order", ascending: true };
  private byId = new Map<string, DivergenceRow>();
  private fresh = false; // a new result whose table is not drawn yet

  constructor(ctx: CanvasContext) {
    super(ctx, "divergence");
  }

  protected show(data: DivergenceSetMessage): void {
    this.data = data;
    this.byId = new Map(data.rows.filter((r) => r.id && r.worst).map((r) => [r.id as string, r]));
    this.sort = { key: "order", ascending: true }; // execution order, scrolled to the first node past the tolerance
    this.fresh = true;
    this.refresh();
  }

  private markOf(n: NodeSingular): string | null {
    const data = this.data as DivergenceSetMessage;
    if (n.hasClass("group")) return groupMark(data.groups[n.id()], ["over", "within"]);
    const row = this.byId.get(n.id());
    return row ? (row.over ? "over" : "within") : null;
  }

  refresh(): void {
    const data = this.data;
    if (!data || !this.drawn) return;
    paint(this.ctx, (n) => this.markOf(n), data.first);
    this.mark();
    this.drawLegend();
    if (this.fresh || !this.drawnBox("dld-div-table")) {
      this.fresh = false;
      this.drawTable(true); // a new result, or drawn again: at the first node past the tolerance
    }
  }

  clear(): void {
    super.clear();
    this.byId.clear();
  }

  private drawLegend(): void {
    const data = this.data;
    if (!data) return;
    const below = data.metric === "cosine" || data.metric === "sqnr";
    const head = legendHead("Divergence", data.source);
    const rule = el("div", "dld-cmp-summary", `${data.metric} ${below ? "below" : "above"} ${formatCell(data.tolerance)} is past the tolerance`);
    const first = el("button", "dld-div-first", data.first_name ? `First past it: ${data.first_name}` : "No node past the tolerance");
    first.type = "button";
    first.disabled = !data.first;
    const keys = el("div", "dld-cmp-keys");
    keys.append(swatch("over", "past the tolerance (or NaN/Inf)"), swatch("within", "within it"));
    this.box("dld-div-legend").replaceChildren(head, rule, first, keys, el("div", "dld-cmp-note", data.headline));
  }

  /** The table in the sort chosen; `atFirst`: scrolled so the first row past the tolerance is the top one. */
  drawTable(atFirst = false): void {
    const data = this.data;
    if (!data) return;
    const first = data.first_row === null ? null : data.rows[data.first_row];
    const { key, ascending } = this.sort;
    const table = el("table");
    const head = el("tr");
    for (const [column, label] of COLUMNS) {
      const th = el("th", column === key ? (ascending ? "sorted-up" : "sorted-down") : "", label);
      th.dataset.column = column;
      th.title = "Sort by this column (again: reversed)";
      head.append(th);
    }
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    for (const row of sortRows(data.rows, key, ascending)) {
      const tr = el("tr", `${row.over ? "over" : ""}${row === first ? " first" : ""}`.trim());
      tr.dataset.node = row.node;
      for (const [column] of COLUMNS) {
        tr.append(el("td", column === "node" ? "name" : "", column === "node" && row.output ? `${row.node} :${row.output}` : formatCell(row[column] as Num)));
      }
      if (row.error) tr.title = row.error;
      else if (row === first) tr.title = "The first node past the tolerance in execution order";
      if (row.id) tr.dataset.id = row.id;
      body.append(tr);
    }
    table.append(thead, body);
    const box = this.box("dld-div-table"); // its one click listener serves every row (boxClick)
    box.replaceChildren(table);
    const top = atFirst ? box.querySelector<HTMLTableRowElement>("tbody tr.first") : null;
    // Rows before it are all within the tolerance (often weight plumbing): they stay one scroll up.
    if (top) box.scrollTop = top.offsetTop - thead.offsetHeight;
  }

  protected boxClick(name: string, event: Event): void {
    const first = this.data?.first;
    if (name === "dld-div-table") this.tableClick(event);
    else if ((event.target as HTMLElement).closest(".dld-div-first") && first) focusNode(this.ctx, "divergence", first);
    else super.boxClick(name, event);
  }

  /** A header sorts by its column (again: reversed); a row focuses its node. */
  private tableClick(event: Event): void {
    const target = event.target as HTMLElement;
    const th = target.closest("th");
    if (th?.dataset.column) {
      const column = th.dataset.column as keyof DivergenceRow;
      const natural = ["order", "node", "op", "cosine", "sqnr"].includes(column); // smallest first reads best
      this.sort = { key: column, ascending: column === this.sort.key ? !this.sort.ascending : natural };
      this.drawTable();
      return;
    }
    const id = target.closest("tr")?.dataset.id;
    if (id) focusNode(this.ctx, "divergence", id);
  }

  protected groupText(counts: Record<string, number>): string {
    return `${counts.over ?? 0} past the tolerance, ${counts.within ?? 0} within`;
  }

  protected describe(n: NodeSingular): string[] | null {
    const row = this.byId.get(n.id());
    if (!row) return null;
    return [
      `${row.op} · ${row.node}`,
      `max abs ${formatCell(row.max_abs)} · max rel ${formatCell(row.max_rel)}`,
      `cosine ${formatCell(row.cosine)} · SQNR ${formatCell(row.sqnr)} dB`,
      `NaN ${row.nan} · Inf ${row.inf}${row.over ? " · past the tolerance" : ""}`,
      ...(row.error ? [row.error] : []),
    ];
  }
}

export const divergenceOverlay: OverlayKind = { name: "divergence", paints: true, make: (ctx) => new DivergenceOverlay(ctx) };
