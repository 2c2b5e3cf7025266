/**
 * The divergence table anywidget (Python half: dld_jupyter/widgets/results/divergence_table.py): every compared
 * output of a divergence run, in a main-area tab beside the designer (or below it in a notebook), where it has the
 * page's width; on the canvas it was a 640 px box floating over the graph. It opens in execution order scrolled so
 * the first row past the tolerance is the top one, that row highlighted (the rows before it, often weight plumbing,
 * are all within it); a click on a column header sorts by it (again: reversed); a click on a row asks the kernel to
 * focus that node on the designer's canvas (`focus{node}`, the designer's tab comes forward).
 *
 * State the kernel knows: the rows, the run's metric, tolerance and headline (synced). State the browser keeps: the
 * sort and the scroll.
 */
import type { RenderProps } from "@anywidget/types";
import { COLUMNS, DivergenceRow, formatCell, sortRows } from "./divergence_rows";
import "./divergence_table.css";

type Num = number | string;

export interface DivergenceTableModel {
  rows: DivergenceRow[];
  first_row: number | null;
  metric: string;
  tolerance: number;
  headline: string;
  source: string;
}

export interface Sort {
  key: keyof DivergenceRow;
  ascending: boolean;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text = ""): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text; // names are data: text, never markup
  return node;
}

/** The table of `rows` in `sort`, the `first` row marked; rows carry their node name in `data-node`. */
export function tableOf(rows: DivergenceRow[], first: DivergenceRow | null, sort: Sort): HTMLTableElement {
  const table = el("table");
  const head = el("tr");
  for (const [column, label] of COLUMNS) {
    const th = el("th", column === sort.key ? (sort.ascending ? "sorted-up" : "sorted-down") : "", label);
    th.dataset.column = column;
    th.title = "Sort by this column (again: reversed)";
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const row of sortRows(rows, sort.key, sort.ascending)) {
    const tr = el("tr", `${row.over ? "over" : ""}${row === first ? " first" : ""}`.trim());
    tr.dataset.node = row.node;
    for (const [column] of COLUMNS) {
      const text = column === "node" && row.output ? `${row.node} :${row.output}` : formatCell(row[column] as Num);
      tr.append(el("td", column === "node" ? "name" : "", text));
    }
    if (row.error) tr.title = row.error;
    else if (row === first) tr.title = "The first node past the tolerance in execution order";
    body.append(tr);
  }
  table.append(thead, body);
  return table;
}

/** The sort after a click on `column`: the same column reversed, else that column in its natural order. */
export function nextSort(sort: Sort, column: keyof DivergenceRow): Sort {
  const natural = ["order", "node", "op", "cosine", "sqnr"].includes(column); // smallest first reads best
  return { key: column, ascending: column === sort.key ? !sort.ascending : natural };
}

function render({ model, el: root }: RenderProps<DivergenceTableModel>): () => void {
  const top = el("div", "dld-div-results");
  const summary = el("div", "dld-div-summary");
  const box = el("div", "dld-div-table");
  top.append(summary, box);
  root.append(top);
  let sort: Sort = { key: "order", ascending: true };

  const draw = (atFirst: boolean): void => {
    const rows = model.get("rows");
    const index = model.get("first_row");
    const first = index === null ? null : rows[index] ?? null;
    const metric = model.get("metric");
    const below = metric === "cosine" || metric === "sqnr";
    const source = model.get("source");
    summary.replaceChildren(
      el("b", "", `Divergence${source ? `: ${source}` : ""}`),
      el("span", "", ` ${metric} ${below ? "below" : "above"} ${formatCell(model.get("tolerance"))} is past the tolerance. `),
      el("span", "dld-div-headline", model.get("headline")),
    );
    const table = tableOf(rows, first, sort);
    box.replaceChildren(table);
    const row = atFirst ? box.querySelector<HTMLTableRowElement>("tbody tr.first") : null;
    if (row) box.scrollTop = row.offsetTop - (table.tHead?.offsetHeight ?? 0);
  };
  const onClick = (event: Event): void => {
    const target = event.target as HTMLElement;
    const th = target.closest("th");
    if (th?.dataset.column) {
      sort = nextSort(sort, th.dataset.column as keyof DivergenceRow);
      draw(false);
      return;
    }
    const node = target.closest("tr")?.dataset.node;
    if (node) model.send({ kind: "focus", node });
  };
  const redraw = (): void => {
    sort = { key: "order", ascending: true }; // a new result: execution order, at the first node past the tolerance
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
