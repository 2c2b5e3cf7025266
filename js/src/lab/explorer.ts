/**
 * Layer explorer view: toolbar (organize by, sort, expand/collapse all, filter, advanced filters with a badge,
 * show constants) over a virtualized list (only the rows in view are in the DOM; 50,000 layers scroll smoothly).
 *
 * State Python never sees: the query, scroll position, focus. State Python knows: the selection (sent up).
 */
import { activeAdvancedFilters, defaultQuery, LayerQuery, LayerStore, Row } from "./layer_store";

const ROW_HEIGHT = 22;
const OVERSCAN = 8;

export interface ExplorerCallbacks {
  select(ids: string[]): void;
  focus(id: string): void;
  /** Right-click on a layer row: the selection it acts on (the row is selected first if it was not). */
  contextMenu?(ids: string[], event: MouseEvent): void;
  /** The ids of the layers whose attributes match `expression` (the kernel evaluates it); rejects saying why. */
  attributeFilter?(expression: string): Promise<string[]>;
}

export class LayerExplorer {
  readonly node: HTMLDivElement;
  readonly store = new LayerStore();
  query: LayerQuery = defaultQuery();
  private rows: Row[] = [];
  private selected = new Set<string>();
  private breakpoints = new Set<string>();
  private anchor: number | null = null;
  private readonly viewport: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly list: HTMLDivElement;
  private readonly filterInput: HTMLInputElement;
  private readonly badge: HTMLSpanElement;
  private readonly advanced: HTMLDivElement;
  private readonly countLabel: HTMLDivElement;
  private readonly organizeSelect: HTMLSelectElement;
  private readonly sortButton: HTMLButtonElement;
  private readonly constantsToggle: HTMLInputElement;
  private frame = 0;
  private soon = 0;

  constructor(private readonly callbacks: ExplorerCallbacks) {
    this.node = el("div", "dld-Explorer");
    const toolbar = el("div", "dld-Explorer-toolbar");
    this.organizeSelect = document.createElement("select");
    this.organizeSelect.title = "Organize layers by";
    this.organizeSelect.append(option("type", "By type"), option("name", "By name"));
    this.organizeSelect.onchange = () => this.update({ organize: this.organizeSelect.value as LayerQuery["organize"] });
    this.sortButton = button("dld-Explorer-sort", "Toggle sort order", () =>
      this.update({ descending: !this.query.descending }),
    );
    const expand = button("dld-Explorer-expand", "Expand all types", () => this.update({ collapsed: new Set() }));
    expand.textContent = "⊞";
    const collapse = button("dld-Explorer-collapse", "Collapse all types", () =>
      this.update({ collapsed: new Set(this.store.typeNames()) }),
    );
    collapse.textContent = "⊟";
    const constants = el("label", "dld-Explorer-constants");
    this.constantsToggle = document.createElement("input");
    this.constantsToggle.type = "checkbox";
    this.constantsToggle.onchange = () => this.update({ hideConstants: !this.constantsToggle.checked });
    constants.append(this.constantsToggle, document.createTextNode("Constants"));
    constants.title = "Show Constant nodes (hidden by default)";
    toolbar.append(this.organizeSelect, this.sortButton, expand, collapse, constants);

    const filterRow = el("div", "dld-Explorer-filterRow");
    this.filterInput = document.createElement("input");
    this.filterInput.className = "dld-Explorer-filter";
    this.filterInput.placeholder = "Filter by name";
    this.filterInput.oninput = () => this.update({ filter: this.filterInput.value });
    const gear = button("dld-Explorer-gear", "Hide/Show Advanced Filters", () => {
      this.advanced.hidden = !this.advanced.hidden;
      if (!this.advanced.hidden) this.renderAdvanced();
    });
    gear.textContent = "⚙";
    this.badge = el("span", "dld-Explorer-badge");
    gear.append(this.badge);
    filterRow.append(this.filterInput, gear);
    this.advanced = el("div", "dld-Explorer-advanced");
    this.advanced.hidden = true;

    const header = el("div", "dld-Explorer-header");
    header.append(cell("Name", "dld-col-name"), cell("Type", "dld-col-type"), cell("TRT-Prec", "dld-col-prec"));
    this.viewport = el("div", "dld-Explorer-viewport");
    this.spacer = el("div", "dld-Explorer-spacer");
    this.list = el("div", "dld-Explorer-rows");
    this.viewport.append(this.spacer, this.list);
    this.viewport.onscroll = () => this.schedule();
    this.list.onclick = (event) => this.onClick(event);
    this.list.oncontextmenu = (event) => this.onContextMenu(event);
    this.countLabel = el("div", "dld-Explorer-count");
    this.node.append(toolbar, filterRow, this.advanced, header, this.viewport, this.countLabel);
    this.syncControls();
  }

  setSelection(ids: string[]): void {
    this.selected = new Set(ids);
    this.schedule();
  }

  /** The analysis's breakpoints: those rows wear the canvas's red badge. */
  setBreakpoints(ids: string[]): void {
    this.breakpoints = new Set(ids);
    this.schedule();
  }

  /**
   * Refresh after a short quiet moment: a burst of edits (or a drag) patches the data at once but re-derives the
   * rows once, so the canvas, which shares this page's main thread, answers its edits first.
   */
  refreshSoon(): void {
    if (!this.soon) this.soon = window.setTimeout(() => this.refresh(), 120);
  }

  /** Re-derive the visible rows (after data or query changes) and redraw. */
  refresh(): void {
    clearTimeout(this.soon);
    this.soon = 0;
    this.rows = this.store.rows(this.query);
    this.spacer.style.height = `${this.rows.length * ROW_HEIGHT}px`;
    const shown = this.rows.filter((row) => row.kind === "layer").length;
    this.countLabel.textContent = `${shown} of ${this.store.size} layers`;
    this.syncControls();
    if (!this.advanced.hidden) this.renderAdvanced();
    this.draw();
  }

  update(change: Partial<LayerQuery>): void {
    this.query = { ...this.query, ...change };
    this.refresh();
  }

  private syncControls(): void {
    this.organizeSelect.value = this.query.organize;
    this.sortButton.textContent = this.query.descending ? "Z→A" : "A→Z";
    this.constantsToggle.checked = !this.query.hideConstants;
    const active = activeAdvancedFilters(this.query);
    this.badge.textContent = active > 0 ? String(active) : "";
    this.badge.hidden = active === 0;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draw only the rows in view (plus a few above and below). */
  private draw(): void {
    const top = this.viewport.scrollTop;
    const height = this.viewport.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    const store = this.store;
    const parts: HTMLElement[] = [];
    for (let r = first; r < last; r++) {
      const row = this.rows[r];
      const item = el("div", "dld-Explorer-row");
      item.style.top = `${r * ROW_HEIGHT}px`;
      item.dataset.row = String(r);
      if (row.kind === "group") {
        item.classList.add("dld-Explorer-group");
        item.textContent = `${row.collapsed ? "▸" : "▾"} ${row.type} (${row.count})`;
      } else {
        const i = row.index;
        item.dataset.id = store.ids[i];
        if (this.selected.has(store.ids[i])) item.classList.add("dld-mod-selected");
        if (this.breakpoints.has(store.ids[i])) {
          item.classList.add("dld-mod-breakpoint");
          item.prepend(el("span", "dld-Explorer-breakpoint"));
        }
        const indent = this.query.organize === "type" ? " dld-mod-indent" : "";
        item.append(
          cell(store.names[i] || `(${store.ids[i]})`, "dld-col-name" + indent),
          cell(store.types[i], "dld-col-type"),
          cell(store.precisions[i], "dld-col-prec"),
        );
        item.title = `${store.names[i]} — ${store.types[i]}`;
      }
      parts.push(item);
    }
    this.list.replaceChildren(...parts);
  }

  private rowOf(event: MouseEvent): number | null {
    const item = (event.target as HTMLElement).closest<HTMLElement>(".dld-Explorer-row");
    return item ? Number(item.dataset.row) : null;
  }

  private onClick(event: MouseEvent): void {
    const r = this.rowOf(event);
    if (r === null) return;
    const row = this.rows[r];
    if (row.kind === "group") {
      const collapsed = new Set(this.query.collapsed);
      if (collapsed.has(row.type)) collapsed.delete(row.type);
      else collapsed.add(row.type);
      this.update({ collapsed });
      return;
    }
    const id = this.store.ids[row.index];
    if (event.shiftKey && this.anchor !== null) {
      const [a, b] = [Math.min(this.anchor, r), Math.max(this.anchor, r)];
      for (let k = a; k <= b; k++) {
        const other = this.rows[k];
        if (other.kind === "layer") this.selected.add(this.store.ids[other.index]);
      }
    } else if (event.ctrlKey || event.metaKey) {
      if (this.selected.has(id)) this.selected.delete(id);
      else this.selected.add(id);
      this.anchor = r;
    } else {
      this.selected = new Set([id]);
      this.anchor = r;
    }
    // A double-click centres the node on the canvas. Read from the second click, not from dblclick: the first click
    // selects, the kernel's answer redraws the rows, and dblclick then fires on the list, not on a row (issue 26).
    this.draw();
    this.callbacks.select([...this.selected]);
    if (event.detail === 2 && !event.shiftKey && !event.ctrlKey && !event.metaKey) this.callbacks.focus(id);
  }

  private onContextMenu(event: MouseEvent): void {
    const r = this.rowOf(event);
    if (r === null || this.rows[r].kind !== "layer" || !this.callbacks.contextMenu) return;
    event.preventDefault();
    event.stopPropagation(); // JupyterLab's own context menu stays closed
    const id = this.store.ids[(this.rows[r] as { kind: "layer"; index: number }).index];
    if (!this.selected.has(id)) {
      this.selected = new Set([id]);
      this.anchor = r;
      this.draw();
      this.callbacks.select([id]);
    }
    this.callbacks.contextMenu([...this.selected], event);
  }

  private renderAdvanced(): void {
    const box = (label: string, checked: boolean, onChange: (on: boolean) => void): HTMLLabelElement => {
      const wrap = el("label", "dld-Explorer-check");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.checked = checked;
      input.onchange = () => onChange(input.checked);
      wrap.append(input, document.createTextNode(label));
      return wrap;
    };
    const toggle = (set: Set<string>, key: string, on: boolean): Set<string> => {
      const next = new Set(set);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    };
    const constrained = box("Has TensorRT precision constraint", this.query.constrainedOnly, (on) =>
      this.update({ constrainedOnly: on }),
    );
    const precisions = el("div", "dld-Explorer-advGroup");
    precisions.append(el("div", "dld-Explorer-advTitle", "TRT precision"));
    for (const precision of this.store.precisionNames().filter((p) => p)) {
      precisions.append(
        box(precision, this.query.precisions.has(precision), (on) =>
          this.update({ precisions: toggle(this.query.precisions, precision, on) }),
        ),
      );
    }
    const types = el("div", "dld-Explorer-advGroup");
    types.append(el("div", "dld-Explorer-advTitle", "Layer type"));
    for (const type of this.store.typeNames()) {
      types.append(
        box(type, this.query.types.has(type), (on) => this.update({ types: toggle(this.query.types, type, on) })),
      );
    }
    this.advanced.replaceChildren(constrained, this.attributeGroup(), precisions, types);
  }

  /** Filter by any attribute: an expression such as `group=1, kernel_shape=[3, 3]` (Enter applies, empty clears). */
  private attributeGroup(): HTMLDivElement {
    const group = el("div", "dld-Explorer-advGroup dld-Explorer-attr");
    const input = document.createElement("input");
    input.className = "dld-Explorer-attrInput";
    input.placeholder = "group=1, kernel_shape=[3, 3], auto_pad!=NOTSET, mode~linear";
    input.value = this.query.attribute;
    const note = el("div", "dld-Explorer-attrNote", this.query.attrIds ? `${this.query.attrIds.size} layers match` : "");
    const apply = () => {
      const expression = input.value.trim();
      if (!expression) return this.update({ attribute: "", attrIds: null });
      if (!this.callbacks.attributeFilter) return;
      this.callbacks.attributeFilter(expression).then(
        (ids) => {
          note.classList.remove("dld-mod-error");
          this.update({ attribute: expression, attrIds: new Set(ids) });
        },
        (error: unknown) => {
          note.textContent = String(error instanceof Error ? error.message : error);
          note.classList.add("dld-mod-error");
        },
      );
    };
    input.onkeydown = (e) => { if (e.key === "Enter") apply(); };
    input.onchange = apply;
    group.append(el("div", "dld-Explorer-advTitle", "Attribute (Enter to apply)"), input, note);
    return group;
  }
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cell(text: string, className: string): HTMLSpanElement {
  return el("span", className, text);
}

function option(value: string, label: string): HTMLOptionElement {
  const node = document.createElement("option");
  node.value = value;
  node.textContent = label;
  return node;
}

function button(className: string, title: string, onClick: () => void): HTMLButtonElement {
  const node = el("button", `dld-Explorer-button ${className}`);
  node.title = title;
  node.onclick = onClick;
  return node;
}
