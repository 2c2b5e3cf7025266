/**
 * The layer documentation browser (seed 000 "Help > Layer Documentation"; issue 41): Help → ONNX Operator
 * Documentation opens a main-area panel with a searchable list of every operator on the left (name, domain,
 * category; deprecated ones marked) and the chosen operator's reference on the right: description, inputs,
 * outputs, attributes with their types and defaults, type constraints, and every version of the operator.
 *
 * The data is the schema registry the designer's palette, parameter editor and "Go To Documentation" read,
 * served by the Jupyter server (dld_jupyter/lab/operator_docs_handler.py: `/dld/operators`), so it opens without a
 * kernel. Every name and text of a schema is set as text; the descriptions' Markdown goes through doc_markdown.ts.
 */
import { Widget } from "@lumino/widgets";

import { renderDoc } from "./doc_markdown";

export interface OperatorEntry {
  name: string;
  domain: string;
  since_version: number;
  category: string;
  deprecated: boolean;
  summary: string;
}

interface Param {
  name: string;
  type: string;
  types: string[];
  optional: boolean;
  variadic: boolean;
  doc: string;
}

interface Version {
  since_version: number;
  deprecated: boolean;
  doc: string;
  inputs: Param[];
  outputs: Param[];
  attributes: Array<{ name: string; type: string; required: boolean; default: string | null; doc: string }>;
  type_constraints: Array<{ name: string; types: string[]; doc: string }>;
  inputs_range: [number, number];
  outputs_range: [number, number];
}

export interface OperatorReference {
  name: string;
  domain: string;
  category: string;
  versions: Version[];
}

/** Asks the server: the index without a name, an operator's reference with one (throws the server's message). */
export type OperatorSource = (query?: { name: string; domain: string }) => Promise<unknown>;

/** The entries matching `query` (case-insensitive, in name, domain or category): exact names first, then names
 * that start with it, then the others, each group in index order. */
export function filterOperators(entries: OperatorEntry[], query: string): OperatorEntry[] {
  const q = query.trim().toLowerCase();
  if (!q) return entries;
  const rank = (e: OperatorEntry): number => {
    const name = e.name.toLowerCase();
    if (name === q) return 0;
    if (name.startsWith(q)) return 1;
    if (name.includes(q)) return 2;
    return `${e.domain} ${e.category}`.toLowerCase().includes(q) ? 3 : 4;
  };
  return entries
    .map((entry, index) => ({ entry, index, rank: rank(entry) }))
    .filter((r) => r.rank < 4)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((r) => r.entry);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function range([low, high]: [number, number]): string {
  if (high >= 2147483647) return `${low} or more`;
  return low === high ? String(low) : `${low} to ${high}`;
}

function params(title: string, items: Param[], count: [number, number]): HTMLElement {
  const section = el("section", "dld-docs-section");
  section.append(el("h3", "", `${title} (${range(count)})`));
  const list = el("dl");
  for (const p of items) {
    const flags = [p.optional ? "optional" : "", p.variadic ? "variadic" : ""].filter(Boolean).join(", ");
    list.append(el("dt", "", `${p.name} : ${p.type}${flags ? ` (${flags})` : ""}`));
    const dd = el("dd");
    dd.append(renderDoc(p.doc));
    list.append(dd);
  }
  if (!items.length) list.append(el("dd", "", "none"));
  section.append(list);
  return section;
}

/** One version of an operator: the parts the seed's documentation pages have. */
export function renderVersion(version: Version): HTMLElement {
  const body = el("div", "dld-docs-version");
  if (version.deprecated) body.append(el("p", "dld-docs-deprecated", "Deprecated in this version."));
  const doc = el("div", "dld-docs-doc");
  doc.append(renderDoc(version.doc));
  body.append(doc);
  const attributes = el("section", "dld-docs-section dld-docs-attributes");
  attributes.append(el("h3", "", `Attributes (${version.attributes.length})`));
  const list = el("dl");
  for (const a of version.attributes) {
    const how = a.required ? "required" : a.default !== null ? `default ${a.default}` : "optional";
    list.append(el("dt", "", `${a.name} : ${a.type.toLowerCase()} (${how})`));
    const dd = el("dd");
    dd.append(renderDoc(a.doc));
    list.append(dd);
  }
  if (!version.attributes.length) list.append(el("dd", "", "none"));
  attributes.append(list);
  body.append(params("Inputs", version.inputs, version.inputs_range), params("Outputs", version.outputs, version.outputs_range), attributes);
  const types = el("section", "dld-docs-section");
  types.append(el("h3", "", "Type constraints"));
  const constraints = el("dl");
  for (const c of version.type_constraints) {
    constraints.append(el("dt", "", `${c.name} : ${c.types.join(", ")}`), el("dd", "", c.doc));
  }
  if (!version.type_constraints.length) constraints.append(el("dd", "", "none"));
  types.append(constraints);
  body.append(types);
  return body;
}

export class OperatorDocsPanel extends Widget {
  private entries: OperatorEntry[] = [];
  private readonly search = el("input", "dld-docs-search");
  private readonly list = el("ul", "dld-docs-list");
  private readonly count = el("div", "dld-docs-count");
  private readonly body = el("div", "dld-docs-body");
  private shown = "";
  readonly ready: Promise<void>;
  /** The operator shown, once its reference is drawn (the tab's restorer keeps it across page reloads). */
  current: { name: string; domain: string } | null = null;
  onShown: () => void = () => undefined;

  constructor(private readonly source: OperatorSource) {
    super();
    this.addClass("dld-docs");
    this.id = "dld-jupyter-operator-docs";
    this.title.label = "ONNX Operator Documentation";
    this.title.closable = true;
    this.search.type = "search";
    this.search.placeholder = "Search operators (name, domain, category)";
    this.search.setAttribute("aria-label", "Search operators");
    const side = el("div", "dld-docs-side");
    side.append(this.search, this.count, this.list);
    this.body.append(el("p", "dld-docs-hint", "Choose an operator on the left."));
    this.node.append(side, this.body);
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("aria-label", "Operators");
    this.search.addEventListener("input", () => this.fill());
    // keyboard: Enter in the search shows the first match, ArrowDown goes into the list; in the list the arrows move
    // between operators and Enter or Space shows the one focused (element-owned listeners: they go with the panel)
    this.search.addEventListener("keydown", (event) => {
      const first = this.list.querySelector<HTMLElement>("li");
      if (event.key === "Enter" && first) first.click();
      if (event.key === "ArrowDown" && first) {
        event.preventDefault();
        first.focus();
      }
    });
    this.list.addEventListener("keydown", (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>("li");
      if (!item) return;
      if (event.key === "Enter" || event.key === " ") item.click();
      else if (event.key === "ArrowDown") (item.nextElementSibling as HTMLElement | null)?.focus();
      else if (event.key === "ArrowUp") ((item.previousElementSibling as HTMLElement | null) ?? this.search).focus();
      else return;
      event.preventDefault();
    });
    this.ready = this.load();
  }

  private async load(): Promise<void> {
    try {
      this.entries = (await this.source()) as OperatorEntry[];
    } catch (error) {
      this.count.textContent = `The operator list could not be read: ${String((error as Error).message ?? error)}`;
      return;
    }
    this.fill();
  }

  private fill(): void {
    const found = filterOperators(this.entries, this.search.value);
    this.count.textContent = `${found.length} of ${this.entries.length} operators`;
    this.list.replaceChildren(
      ...found.map((entry) => {
        const item = el("li", "dld-docs-item");
        item.tabIndex = 0;
        item.setAttribute("role", "option");
        item.dataset.name = entry.name;
        item.dataset.domain = entry.domain;
        item.title = entry.summary;
        item.append(el("span", "dld-docs-name", entry.name), el("span", "dld-docs-domain", entry.domain));
        if (entry.deprecated) item.classList.add("dld-docs-deprecated-item");
        const current = `${entry.domain}/${entry.name}` === this.shown;
        item.classList.toggle("dld-docs-current", current);
        item.setAttribute("aria-selected", String(current));
        item.addEventListener("click", () => void this.showOperator(entry.name, entry.domain));
        return item;
      }),
    );
  }

  /** Shows an operator's reference at `version` (a since_version; default the newest), the version buttons
   * showing the others. */
  async showOperator(name: string, domain = "ai.onnx", version?: number): Promise<void> {
    this.shown = `${domain}/${name}`;
    for (const item of this.list.querySelectorAll<HTMLElement>("li")) {
      const current = `${item.dataset.domain}/${item.dataset.name}` === this.shown;
      item.classList.toggle("dld-docs-current", current);
      item.setAttribute("aria-selected", String(current));
      if (current) item.scrollIntoView?.({ block: "nearest" });
    }
    let reference: OperatorReference;
    try {
      reference = (await this.source({ name, domain })) as OperatorReference;
    } catch (error) {
      this.body.replaceChildren(el("p", "dld-docs-error", String((error as Error).message ?? error)));
      return;
    }
    if (this.shown !== `${domain}/${name}`) return; // another operator was chosen meanwhile
    const head = el("header", "dld-docs-head");
    head.append(el("h2", "dld-docs-title", reference.name));
    head.append(el("div", "dld-docs-meta", `${reference.domain} · ${reference.category}`));
    const versions = el("div", "dld-docs-versions");
    const view = el("div", "dld-docs-view");
    const pick = (index: number) => {
      view.replaceChildren(renderVersion(reference.versions[index]));
      versions.querySelectorAll("button").forEach((b, i) => b.classList.toggle("dld-docs-active", i === index));
    };
    versions.append(el("span", "", "Versions (since opset): "));
    reference.versions.forEach((version, index) => {
      const button = el("button", "dld-docs-version-button", String(version.since_version));
      button.title = `${reference.name} as opset ${version.since_version} defines it`;
      button.addEventListener("click", () => pick(index));
      versions.append(button);
    });
    head.append(versions);
    this.body.replaceChildren(head, view);
    this.body.scrollTop = 0;
    pick(Math.max(0, reference.versions.findIndex((v) => v.since_version === version)));
    this.current = { name, domain };
    this.onShown();
  }
}
