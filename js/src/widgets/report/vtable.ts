/**
 * A virtualized table: only the rows in view (plus a few) exist in the DOM, recycled from a pool as the user
 * scrolls, so 5,000 or 50,000 layers scroll and filter at the same speed. Rows are report positions; the table
 * owns row selection (click, Ctrl/Cmd-click toggles, Shift-click extends from the anchor in display order).
 * Browser-only state: scroll position, anchor, hover.
 */
import { el } from "./format";
import { heat, HeatScheme } from "./heat";
import { Listeners } from "../../common/listeners";
import { readTheme, watchTheme } from "../../common/theme";

export interface ColumnDef {
  key: string;
  label: string;
  width: number; // px; the flexible column grows past it to fill the table
  flex?: boolean;
  numeric?: boolean;
  text(pos: number): string;
  sortValue?(pos: number): number | string;
  heat?(pos: number): number; // 0..1: background intensity when heat colours are on
  title?(pos: number): string;
  cell?(pos: number, cell: HTMLElement): void; // custom content (links)
}

const ROW_HEIGHT = 22;
const OVERSCAN = 8;

export class VirtualTable {
  readonly root = el("div", "dld-vt");
  private readonly head = el("div", "dld-vt-head");
  private readonly body = el("div", "dld-vt-body");
  private readonly pool: HTMLElement[] = [];
  private columns: ColumnDef[] = [];
  rows: number[] = [];
  selection = new Set<number>();
  private anchor = -1;
  heatOn = true;
  scheme: HeatScheme = "cividis";
  private heatBase = "#ffffff"; // the low end of the heat scale: the theme's background
  sortKey = "";
  sortDescending = false;
  highlighted = -1;
  onSelect: (selected: number[]) => void = () => {};
  onActivate: (pos: number) => void = () => {};
  onSort: (key: string) => void = () => {};
  /** Return true when the click was handled (a link), so it does not change the selection. */
  onCellClick: (pos: number, target: HTMLElement, event: MouseEvent) => boolean = () => false;
  readonly schedule: () => void;

  constructor(host: HTMLElement, listeners: Listeners, height = 320) {
    this.root.style.height = `${height}px`;
    this.root.tabIndex = 0;
    this.root.append(this.head, this.body);
    host.appendChild(this.root);
    this.schedule = listeners.frame(() => this.render());
    this.heatBase = readTheme(host).background;
    listeners.add(watchTheme(host, (theme) => {
      this.heatBase = theme.background;
      this.schedule();
    }));
    listeners.dom(this.root, "scroll", () => this.schedule(), { passive: true });
    listeners.dom(this.head, "click", (e: MouseEvent) => {
      const key = (e.target as HTMLElement).closest<HTMLElement>("[data-key]")?.dataset.key;
      if (key) this.onSort(key);
    });
    listeners.dom(this.body, "click", (e: MouseEvent) => this.click(e));
    listeners.dom(this.body, "dblclick", (e: MouseEvent) => {
      const pos = this.rowOf(e);
      if (pos >= 0) this.onActivate(pos);
    });
    listeners.dom(this.root, "keydown", (e: KeyboardEvent) => this.key(e));
    // Focus for the keyboard without the browser scrolling the page to the table between the two clicks of a
    // double-click (which would land the second click on another row).
    listeners.dom(this.body, "mousedown", (e: MouseEvent) => {
      e.preventDefault();
      this.root.focus({ preventScroll: true });
    });
  }

  setColumns(columns: ColumnDef[]): void {
    this.columns = columns;
    // Header and rows share one template and one explicit min-width, so their columns always line up.
    const template = columns.map((c) => (c.flex ? `minmax(${c.width}px, 1fr)` : `${c.width}px`)).join(" ");
    const minWidth = `${columns.reduce((a, c) => a + c.width, 0)}px`;
    this.head.style.gridTemplateColumns = template;
    this.head.style.minWidth = minWidth;
    this.body.style.minWidth = minWidth;
    this.head.replaceChildren(
      ...columns.map((c) => {
        const h = el("div", `dld-vt-th${c.numeric ? " num" : ""}`, c.label);
        h.dataset.key = c.key;
        h.title = `Sort by ${c.label}`;
        return h;
      }),
    );
    for (const row of this.pool) row.remove();
    this.pool.length = 0;
    this.schedule();
  }

  setRows(rows: number[]): void {
    this.rows = rows;
    this.body.style.height = `${rows.length * ROW_HEIGHT}px`;
    this.render(); // synchronously: a keystroke in the filter shows its rows in the same frame
  }

  private rowOf(e: Event): number {
    const row = (e.target as HTMLElement).closest<HTMLElement>(".dld-vt-row");
    return row ? Number(row.dataset.pos) : -1;
  }

  private click(e: MouseEvent): void {
    const pos = this.rowOf(e);
    if (pos < 0) return;
    if (this.onCellClick(pos, e.target as HTMLElement, e)) return;
    this.pick(pos, e.shiftKey, e.ctrlKey || e.metaKey);
  }

  pick(pos: number, extend: boolean, toggle: boolean): void {
    if (extend && this.anchor >= 0) {
      const a = this.rows.indexOf(this.anchor);
      const b = this.rows.indexOf(pos);
      if (!toggle) this.selection.clear();
      for (let i = Math.min(a, b); i <= Math.max(a, b); i++) if (i >= 0) this.selection.add(this.rows[i]);
    } else if (toggle) {
      if (this.selection.has(pos)) this.selection.delete(pos);
      else this.selection.add(pos);
      this.anchor = pos;
    } else {
      this.selection = new Set([pos]);
      this.anchor = pos;
    }
    this.render();
    this.onSelect([...this.selection].sort((x, y) => x - y));
  }

  setSelection(positions: number[]): void {
    this.selection = new Set(positions);
    this.render();
  }

  private key(e: KeyboardEvent): void {
    if ((e.ctrlKey || e.metaKey) && e.key === "a") {
      e.preventDefault();
      this.selection = new Set(this.rows);
      this.render();
      this.onSelect([...this.selection].sort((x, y) => x - y));
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const at = this.rows.indexOf(this.anchor);
      const next = this.rows[Math.max(0, Math.min(this.rows.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)))];
      if (next !== undefined) {
        this.pick(next, e.shiftKey, false);
        this.scrollTo(next);
      }
    } else if (e.key === "Enter" && this.anchor >= 0) {
      this.onActivate(this.anchor);
    }
  }

  scrollTo(pos: number): void {
    const i = this.rows.indexOf(pos);
    if (i < 0) return;
    const top = i * ROW_HEIGHT;
    const view = this.root.clientHeight - ROW_HEIGHT; // minus the sticky header
    if (top < this.root.scrollTop || top > this.root.scrollTop + view - ROW_HEIGHT) {
      this.root.scrollTop = Math.max(0, top - view / 2);
    }
    this.schedule();
  }

  private makeRow(): HTMLElement {
    const row = el("div", "dld-vt-row");
    row.style.gridTemplateColumns = this.head.style.gridTemplateColumns;
    for (const c of this.columns) row.appendChild(el("div", `dld-vt-td${c.numeric ? " num" : ""}`));
    this.body.appendChild(row);
    return row;
  }

  render(): void {
    for (const h of this.head.children) {
      const key = (h as HTMLElement).dataset.key;
      h.classList.toggle("sorted", key === this.sortKey);
      h.classList.toggle("desc", key === this.sortKey && this.sortDescending);
    }
    const view = this.root.clientHeight || 400; // jsdom and hidden tabs have no layout
    const first = Math.max(0, Math.floor(this.root.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const count = Math.min(this.rows.length - first, Math.ceil(view / ROW_HEIGHT) + 2 * OVERSCAN);
    while (this.pool.length < count) this.pool.push(this.makeRow());
    for (let i = 0; i < this.pool.length; i++) {
      const row = this.pool[i];
      if (i >= count) {
        row.style.display = "none";
        continue;
      }
      const pos = this.rows[first + i];
      row.style.display = "";
      row.style.transform = `translateY(${(first + i) * ROW_HEIGHT}px)`;
      row.dataset.pos = String(pos);
      row.classList.toggle("selected", this.selection.has(pos));
      row.classList.toggle("highlighted", pos === this.highlighted);
      this.fill(row, pos);
    }
  }

  private fill(row: HTMLElement, pos: number): void {
    const cells = row.children;
    for (let c = 0; c < this.columns.length; c++) {
      const col = this.columns[c];
      const cell = cells[c] as HTMLElement;
      if (col.cell) col.cell(pos, cell);
      else cell.textContent = col.text(pos);
      cell.title = col.title ? col.title(pos) : cell.textContent ?? "";
      if (col.heat && this.heatOn) {
        const h = heat(this.scheme, col.heat(pos), this.heatBase);
        cell.style.background = h.bg;
        cell.style.color = h.fg;
      } else if (cell.style.background) {
        cell.style.background = "";
        cell.style.color = "";
      }
    }
  }
}
