/**
 * Operator palette: every operator of the bound model's opsets (and its local functions), arranged by name,
 * collection (domain) or category, sortable and filterable. Entries drag onto a canvas (MIME OP_DRAG_MIME);
 * double-click adds one at the canvas centre. Hover shows the operator's documentation summary. The Analysis category
 * (analysis layers, domain ANALYSIS_DOMAIN) is no operator: dropped on a node while analysing it inserts a layer
 * after that node; double-clicked, after the selected node.
 */
import { ANALYSIS_DOMAIN } from "../common/protocol";
import { OP_DRAG_MIME, PaletteEntry } from "./messages";

export type Arrange = "name" | "domain" | "category";

export interface PaletteCallbacks {
  add(entry: PaletteEntry): void;
}

export class OperatorPalette {
  readonly node: HTMLDivElement;
  private entries: PaletteEntry[] = [];
  private arrange: Arrange = "category";
  private descending = false;
  private readonly filterInput: HTMLInputElement;
  private readonly arrangeSelect: HTMLSelectElement;
  private readonly sortButton: HTMLButtonElement;
  private readonly list: HTMLDivElement;

  constructor(private readonly callbacks: PaletteCallbacks) {
    this.node = document.createElement("div");
    this.node.className = "dld-Palette";
    const toolbar = document.createElement("div");
    toolbar.className = "dld-Palette-toolbar";
    this.arrangeSelect = document.createElement("select");
    this.arrangeSelect.title = "Arrange operators by";
    for (const [value, label] of [
      ["category", "By category"],
      ["domain", "By collection"],
      ["name", "By name"],
    ]) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label;
      this.arrangeSelect.append(option);
    }
    this.arrangeSelect.value = this.arrange;
    this.arrangeSelect.onchange = () => {
      this.arrange = this.arrangeSelect.value as Arrange;
      this.render();
    };
    this.sortButton = document.createElement("button");
    this.sortButton.className = "dld-Explorer-button dld-Palette-sort";
    this.sortButton.title = "Toggle sort order";
    this.sortButton.onclick = () => {
      this.descending = !this.descending;
      this.render();
    };
    this.filterInput = document.createElement("input");
    this.filterInput.className = "dld-Palette-filter";
    this.filterInput.placeholder = "Filter operators";
    this.filterInput.oninput = () => this.render();
    toolbar.append(this.arrangeSelect, this.sortButton, this.filterInput);
    this.list = document.createElement("div");
    this.list.className = "dld-Palette-list";
    this.list.addEventListener("dragstart", (event) => this.onDragStart(event));
    this.list.addEventListener("dblclick", (event) => {
      const entry = this.entryOf(event.target as HTMLElement);
      if (entry) this.callbacks.add(entry);
    });
    this.node.append(toolbar, this.list);
  }

  setEntries(entries: PaletteEntry[]): void {
    this.entries = entries;
    this.render();
  }

  render(): void {
    this.sortButton.textContent = this.descending ? "Z→A" : "A→Z";
    const needle = this.filterInput.value.trim().toLowerCase();
    const shown = this.entries.filter(
      (entry) => !needle || entry.name.toLowerCase().includes(needle) || entry.category.toLowerCase().includes(needle),
    );
    const sign = this.descending ? -1 : 1;
    shown.sort((a, b) => sign * a.name.localeCompare(b.name));
    const groups = new Map<string, PaletteEntry[]>();
    for (const entry of shown) {
      const key = this.arrange === "name" ? "" : this.arrange === "domain" ? entry.domain : entry.category;
      const list = groups.get(key);
      if (list) list.push(entry);
      else groups.set(key, [entry]);
    }
    const parts: HTMLElement[] = [];
    for (const key of [...groups.keys()].sort((a, b) => sign * a.localeCompare(b))) {
      if (key) {
        const header = document.createElement("div");
        header.className = "dld-Palette-group";
        header.textContent = `${key} (${(groups.get(key) as PaletteEntry[]).length})`;
        parts.push(header);
      }
      for (const entry of groups.get(key) as PaletteEntry[]) {
        const item = document.createElement("div");
        item.className = "dld-Palette-item" + (entry.function ? " dld-mod-function" : "");
        item.draggable = true;
        item.dataset.name = entry.name;
        item.dataset.domain = entry.domain;
        item.textContent = entry.function ? `f(x) ${entry.name}` : entry.name;
        item.title =
          entry.domain === ANALYSIS_DOMAIN
            ? `${entry.name}: ${entry.summary}`
            : `${entry.domain}::${entry.name} (since opset ${entry.since_version})\n${entry.summary}`;
        parts.push(item);
      }
    }
    if (parts.length === 0) {
      const empty = document.createElement("div");
      empty.className = "dld-Sidebar-status";
      empty.textContent = this.entries.length ? "No operator matches the filter." : "";
      parts.push(empty);
    }
    this.list.replaceChildren(...parts);
  }

  private entryOf(target: HTMLElement): PaletteEntry | undefined {
    const item = target.closest<HTMLElement>(".dld-Palette-item");
    if (!item) return undefined;
    return this.entries.find((e) => e.name === item.dataset.name && e.domain === item.dataset.domain);
  }

  private onDragStart(event: DragEvent): void {
    const entry = this.entryOf(event.target as HTMLElement);
    if (!entry || !event.dataTransfer) return;
    const domain = entry.domain === "ai.onnx" ? "" : entry.domain;
    event.dataTransfer.setData(OP_DRAG_MIME, JSON.stringify({ name: entry.name, domain }));
    event.dataTransfer.setData("text/plain", entry.name);
    event.dataTransfer.effectAllowed = "copy";
  }
}
