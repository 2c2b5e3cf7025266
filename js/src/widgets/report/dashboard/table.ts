/**
 * One dashboard table (DLProf's DataTables): a filter box, headers that sort on click, Export CSV of the rows shown,
 * and a row click callback. Names are text nodes, never HTML.
 */
import { Listeners } from "../../../common/listeners";
import { download } from "../csv";
import { el } from "../format";
import { Cell, cellText, shownText, TableData, tableCsv } from "./data";

const SHOWN = 400; // rows drawn; the filter and sort still see all of them, the count says how many

export class DataTable {
  readonly root = el("div", "dld-d-table");
  private filterText = "";
  private sortColumn = -1;
  private descending = true;
  private rows: Cell[][] = [];
  private body = el("tbody");
  private head = el("thead");
  private count = el("span", "dld-d-count");
  selected = -1;

  constructor(private readonly listeners: Listeners, private data: TableData, private readonly onRow?: (row: Cell[]) => void) {
    this.root.dataset.table = data.name;
    const bar = el("div", "dld-d-toolbar");
    const filter = el("input", "dld-d-filter");
    filter.placeholder = "Filter (any column; yes/no for ticks)";
    listeners.dom(filter, "input", () => { this.filterText = filter.value.trim().toLowerCase(); this.draw(); });
    const exportButton = el("button", "dld-d-csv", "Export CSV");
    exportButton.type = "button";
    listeners.dom(exportButton, "click", () => download(`${this.data.name}.csv`, this.csv()));
    bar.append(filter, exportButton, this.count);
    const table = el("table", "dld-d-grid");
    table.append(this.head, this.body);
    const scroll = el("div", "dld-d-scroll");
    scroll.append(table);
    this.root.append(bar, scroll);
    this.setData(data);
  }

  setData(data: TableData): void {
    this.data = data;
    this.selected = -1;
    this.head.replaceChildren();
    const tr = el("tr");
    data.columns.forEach((name, i) => {
      const th = el("th", "", name);
      th.title = "Click to sort";
      this.listeners.dom(th, "click", () => {
        this.descending = this.sortColumn === i ? !this.descending : true;
        this.sortColumn = i;
        this.draw();
      });
      tr.append(th);
    });
    this.head.append(tr);
    this.draw();
  }

  /** The rows the filter keeps, in the current sort order. */
  visible(): Cell[][] {
    const f = this.filterText;
    const hit = (c: Cell) => cellText(c).toLowerCase().includes(f) || shownText(c).toLowerCase().includes(f);
    let rows = f ? this.data.rows.filter((r) => r.some(hit)) : [...this.data.rows];
    const c = this.sortColumn;
    if (c >= 0) {
      const present = rows.filter((r) => r[c] !== null);
      const missing = rows.filter((r) => r[c] === null);
      present.sort((a, b) => {
        const x = a[c] as Cell, y = b[c] as Cell;
        const order = typeof x === "string" || typeof y === "string" ? String(x).localeCompare(String(y)) : Number(x) - Number(y);
        return this.descending ? -order : order;
      });
      rows = [...present, ...missing];
    }
    return rows;
  }

  csv(): string {
    return tableCsv(this.data.columns, this.visible());
  }

  private draw(): void {
    this.rows = this.visible();
    this.count.textContent = `${this.rows.length} of ${this.data.rows.length} rows`;
    [...this.head.querySelectorAll("th")].forEach((th, i) => {
      th.dataset.sort = i === this.sortColumn ? (this.descending ? "desc" : "asc") : "";
    });
    this.body.replaceChildren(
      ...this.rows.slice(0, SHOWN).map((row, i) => {
        const tr = el("tr");
        for (const cell of row) {
          const td = el("td", typeof cell === "number" ? "num" : "", shownText(cell));
          if (typeof cell === "string" && cell.length > 60) td.title = cell;
          tr.append(td);
        }
        if (this.onRow) {
          tr.classList.add("pick");
          this.listeners.dom(tr, "click", () => {
            this.selected = i;
            this.body.querySelectorAll("tr.sel").forEach((r) => r.classList.remove("sel"));
            tr.classList.add("sel");
            this.onRow?.(row);
          });
        }
        return tr;
      }),
    );
  }
}
