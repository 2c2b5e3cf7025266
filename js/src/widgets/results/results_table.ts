/**
 * The results table anywidget (Python half: dld_jupyter/widgets/results/results_table.py, with the divergence table
 * and the diff table built on it): a table of a comparison's rows in a main-area tab beside the designer (or below
 * it in a notebook), where it has the page's width; the divergence table was a 640 px box floating over the canvas,
 * the diff's removed nodes a list in a 250 px legend. It opens in the kernel's order scrolled so the `first_row` is
 * the top one, that row highlighted; a click on a column header sorts by it (again: reversed); a click on a row that
 * names a node asks the kernel to focus it on the designer's canvas (`focus{node}`, the designer's tab comes forward).
 *
 * State the kernel knows: columns, rows, first row, heading and summary (synced). State the browser keeps: the sort
 * and the scroll. Every name is text (textContent), never markup.
 */
import type { RenderProps } from "@anywidget/types";
import { formatCell } from "./divergence_rows";
import "./results_table.css";

/** `numeric`: sorted as numbers ("inf", "-inf", "nan" as text are numbers; NaN last); `descending`: the first click
 * sorts largest first (a metric), else smallest first (an order, a name); `wrap`: long text (a node's path, what
 * changed) that wraps at a readable width, where every other column stays on one line. */
export interface Column {
  key: string;
  label: string;
  numeric: boolean;
  descending: boolean;
  wrap: boolean;
}

/** A row: its cells by column key; `node` the node a click focuses (null: not on this canvas); `mark` a CSS class
 * ("over", "added", "removed", "changed"); `title` its tooltip. */
export type ResultsRow = Record<string, unknown> & { node?: string | null; mark?: string; title?: string };

export interface ResultsTableModel {
  kind: string; // "div", "diff": the classes dld-<kind>-results and dld-<kind>-table
  columns: Column[];
  rows: ResultsRow[];
  first_row: number | null;
  heading: string;
  summary: string;
}

export interface Sort {
  key: string;
  ascending: boolean;
}

const asNumber = (v: unknown): number =>
  typeof v === "number" ? v : v === "inf" ? Infinity : v === "-inf" ? -Infinity : typeof v === "string" && v !== "" && !Number.isNaN(Number(v)) ? Number(v) : NaN;

/** Rows sorted by `column` (numbers numerically, NaN last; text by locale), `ascending` or not; `rows` unchanged. */
export function sortRows(rows: ResultsRow[], column: Column, ascending: boolean): ResultsRow[] {
  const sign = ascending ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[column.key];
    const y = b[column.key];
    if (!column.numeric) return sign * String(x ?? "").localeCompare(String(y ?? ""));
    const p = asNumber(x);
    const q = asNumber(y);
    if (Number.isNaN(p) || Number.isNaN(q)) return Number.isNaN(p) ? (Number.isNaN(q) ? 0 : 1) : -1;
    return sign * (p - q);
  });
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text = ""): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text; // names are data: text, never markup
  return node;
}

/** The table of `rows` in `sort` (null: as given), the `first` row marked "first". */
export function tableOf(columns: Column[], rows: ResultsRow[], first: ResultsRow | null, sort: Sort | null): HTMLTableElement {
  const table = el("table");
  const head = el("tr");
  for (const column of columns) {
    const th = el("th", column.key === sort?.key ? (sort.ascending ? "sorted-up" : "sorted-down") : "", column.label);
    th.dataset.column = column.key;
    th.title = "Sort by this column (again: reversed)";
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  const column = sort ? columns.find((c) => c.key === sort.key) : undefined;
  for (const row of column && sort ? sortRows(rows, column, sort.ascending) : rows) {
    const tr = el("tr", `${row.mark ?? ""}${row === first ? " first" : ""}`.trim());
    if (row.node) tr.dataset.node = row.node;
    for (const c of columns) {
      const value = row[c.key];
      tr.append(el("td", c.wrap ? "wrap" : "", formatCell((value ?? null) as number | string | null)));
    }
    if (row.title) tr.title = row.title;
    body.append(tr);
  }
  table.append(thead, body);
  return table;
}

/** The sort after a click on `column`: the same column reversed, else that column in its natural order. */
export function nextSort(sort: Sort | null, column: Column): Sort {
  return { key: column.key, ascending: column.key === sort?.key ? !sort.ascending : !column.descending };
}

function render({ model, el: root }: RenderProps<ResultsTableModel>): () => void {
  const kind = model.get("kind");
  const top = el("div", `dld-results dld-${kind}-results`);
  const summary = el("div", "dld-results-summary");
  const box = el("div", `dld-results-table dld-${kind}-table`);
  top.append(summary, box);
  root.append(top);
  let sort: Sort | null = null; // the kernel's order until a header is clicked

  const draw = (atFirst: boolean): void => {
    const rows = model.get("rows");
    const index = model.get("first_row");
    const first = index === null ? null : rows[index] ?? null;
    summary.replaceChildren(el("b", "", model.get("heading")), el("span", "", ` ${model.get("summary")}`));
    const table = tableOf(model.get("columns"), rows, first, sort);
    box.replaceChildren(table);
    const row = atFirst ? box.querySelector<HTMLTableRowElement>("tbody tr.first") : null;
    // Rows before it (a divergence's weight plumbing, all within the tolerance) stay one scroll up.
    if (row) box.scrollTop = row.offsetTop - (table.tHead?.offsetHeight ?? 0);
  };
  const onClick = (event: Event): void => {
    const target = event.target as HTMLElement;
    const key = target.closest("th")?.dataset.column;
    const column = key ? model.get("columns").find((c) => c.key === key) : undefined;
    if (column) {
      sort = nextSort(sort, column);
      draw(false);
      return;
    }
    const node = target.closest("tr")?.dataset.node;
    if (node) model.send({ kind: "focus", node });
  };
  const redraw = (): void => {
    sort = null; // a new result: the kernel's order, at its first row
    draw(true);
  };
  box.addEventListener("click", onClick);
  model.on("change:rows", redraw);
  requestAnimationFrame(() => draw(true)); // laid out first: the scroll to the first row needs the rows' offsets
  return () => {
    box.removeEventListener("click", onClick);
    model.off("change:rows", redraw);
  };
}

export default { render };
