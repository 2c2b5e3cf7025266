// Initializer editor: the model's initializers (filter, create, delete, open) and the selected node's bindings.
import { button, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { InitItem, InitsState, Terminal } from "./messages";

const MODES: [string, string][] = [
  ["literal", "Value (literal)"], ["npy", "From .npy file"], ["generate", "Generate…"],
  ["sparse", "Sparse (values, indices, dense shape)"], ["external", "External data file"],
];

function select(ls: Listeners, options: [string, string][], value: string, onChange: (v: string) => void, cls = "", disabled = false): HTMLSelectElement {
  const el = h("select", { class: `dld-ed-select ${cls}`.trim(), disabled });
  for (const [v, label] of options) el.append(h("option", { value: v, text: label, selected: v === value }));
  el.value = value;
  ls.on(el, "change", () => onChange(el.value));
  return el;
}

const ROW_HEIGHT = 24; // px, fixed (CSS .dld-ed-table tr): the list draws only the rows in view
const OVERSCAN = 30; // rows drawn above and below the view

function itemRow(it: InitItem): HTMLElement {
  const act = (label: string, title: string, action: string, cls = "") =>
    h("button", { class: `dld-ed-btn ${cls}`.trim(), title, type: "button", text: label, "data-act": action, "data-id": it.id });
  return h("tr", { "data-init": it.name, "data-id": it.id },
    h("td", { class: "dld-ed-name", text: it.name, title: it.location ? `external: ${it.location}` : it.name }),
    h("td", { text: it.dtype }), h("td", { text: `[${it.shape.join(", ")}]` }), h("td", { text: it.size.toLocaleString() }),
    h("td", { text: it.external ? "external" : "", title: it.location ?? "" }),
    h("td", { text: String(it.users), title: "nodes using it" }),
    h("td", {}, act("↗", "Open in the tensor editor", "open"), act("✕", "Delete (disconnects its users)", "delete", "dld-ed-danger")));
}

function spacer(height: number): HTMLElement {
  return h("tr", { class: "dld-ed-spacer", style: `height:${height}px` }, h("td", { colspan: 7 }));
}

/**
 * Every initializer of the model (a 7k-node LLM has 15k): a virtualized table (only the rows in view are in the
 * DOM) with one delegated listener for all rows, so opening or filtering stays fast at any size.
 */
function listPart(ctx: PanelContext, ls: Listeners, state: InitsState): HTMLElement {
  const filter = h("input", { class: "dld-ed-input dld-ed-filter", placeholder: "Filter by name", value: ctx.ui.filter });
  const body = h("tbody");
  const table = h("table", { class: "dld-ed-table" },
    h("thead", {}, h("tr", {}, ...["name", "type", "shape", "size", "storage", "users", ""].map((t) => h("th", { text: t })))), body);
  const scroll = h("div", { class: "dld-ed-scroll" }, table);
  const count = h("span", { class: "dld-ed-muted" });
  let shown = state.items;
  let frame = 0;
  const draw = () => {
    frame = 0;
    const top = scroll.scrollTop;
    const height = scroll.clientHeight || 220;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(shown.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    const rows: HTMLElement[] = [];
    if (first > 0) rows.push(spacer(first * ROW_HEIGHT));
    for (let i = first; i < last; i++) rows.push(itemRow(shown[i]));
    if (last < shown.length) rows.push(spacer((shown.length - last) * ROW_HEIGHT));
    body.replaceChildren(...rows);
  };
  const apply = () => {
    const f = filter.value.toLowerCase();
    ctx.ui.filter = filter.value;
    shown = f ? state.items.filter((it) => it.name.toLowerCase().includes(f)) : state.items;
    count.textContent = f ? `${shown.length} of ${state.items.length} initializers` : `${state.items.length} initializers`;
    draw();
  };
  ls.on(filter, "input", apply);
  ls.on(scroll, "scroll", () => { if (!frame) frame = requestAnimationFrame(draw); });
  ls.on(body, "click", (e: Event) => {
    const b = (e.target as HTMLElement).closest("button[data-act]") as HTMLElement | null;
    if (!b) return;
    e.stopPropagation();
    const id = b.dataset.id as string;
    if (b.dataset.act === "open") ctx.send({ kind: "open_tensor", value_id: id });
    else ctx.send({ kind: "init_delete", value_id: id, key: "list" });
  });
  ls.on(body, "dblclick", (e: Event) => {
    const row = (e.target as HTMLElement).closest("tr[data-id]") as HTMLElement | null;
    if (row) ctx.send({ kind: "open_tensor", value_id: row.dataset.id as string });
  });
  apply();
  const create = button(ls, ctx.ui.createOpen ? "Close" : "Create Initializer", "Create a new initializer", () => {
    ctx.ui.createOpen = !ctx.ui.createOpen; renderInitializers(ctx, ls, rootOf(create));
  });
  return h("div", {}, h("div", { class: "dld-ed-bar" }, filter, create, count),
    ctx.errorBox("list"), ctx.ui.createOpen ? createForm(ctx, ls, state) : null, scroll);
}

function rootOf(el: HTMLElement): HTMLElement {
  return el.closest(".dld-ed-section") as HTMLElement;
}

function field(label: string, el: HTMLElement): HTMLElement {
  return h("label", { class: "dld-ed-field" }, h("span", { text: label }), el);
}

function createForm(ctx: PanelContext, ls: Listeners, state: InitsState): HTMLElement {
  const form = h("div", { class: "dld-ed-create" });
  if (state.items.some((it) => it.name === ctx.ui.fields.get("create:name"))) ctx.forgetFields("create:name"); // created
  const name = ctx.field(ls, "create:name", "", "name");
  const dtypes: [string, string][] = state.dtypes.map((d) => [d, d]);
  const rerender = () => renderInitializers(ctx, ls, rootOf(form));
  const dtype = select(ls, dtypes, ctx.ui.createDtype, (v) => { ctx.ui.createDtype = v; rerender(); }, "", false);
  dtype.setAttribute("data-field", "dtype");
  const mode = select(ls, MODES, ctx.ui.createMode, (v) => { ctx.ui.createMode = v; rerender(); });
  mode.setAttribute("data-field", "mode");
  form.append(field("Name", name), field("Type", dtype), field("Value from", mode));
  const inputs: Record<string, HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement> = {};
  const add = (key: string, label: string, placeholder: string, multiline = false) => {
    const el = ctx.field(ls, `create:${key}`, "", placeholder, multiline);
    inputs[key] = el; form.append(field(label, el));
  };
  const m = ctx.ui.createMode;
  const gens = state.generators[ctx.ui.createDtype] ?? [];
  if (m === "literal") add("text", "Value", "[[1, 2], [3, 4]]   strings: ['a', 'It\\'s']", true);
  if (m === "npy") add("path", ".npy path", "weights.npy (the kernel reads it; its type must match)");
  if (m === "generate") {
    add("shape", "Shape", "[64, 3, 3, 3]");
    const method = select(ls, gens.map((g) => [g, state.generator_labels[g] ?? g]), gens[0] ?? "", () => undefined, "", !gens.length);
    method.setAttribute("data-field", "method");
    inputs.method = method; form.append(field("Fill", method));
    if (!gens.length) form.append(h("div", { class: "dld-ed-muted", text: "No generator for this type." }));
  }
  if (m === "sparse") { add("values", "Values", "[1.5, 2.0]"); add("indices", "Indices", "[1, 5] or [[0, 1], [1, 2]]"); add("dense_shape", "Dense shape", "[2, 3]"); }
  if (m === "external") {
    if (!state.model_dir) form.append(h("div", { class: "dld-ed-muted", text: "Save the model first: external paths are relative to its folder." }));
    add("location", "File", "weights.bin (relative to the model)"); add("shape", "Shape", "[64, 3]");
    add("offset", "Offset", "0"); add("length", "Length", "(the tensor's size)");
  }
  const go = button(ls, "Create", "Create the initializer", () => {
    const msg: Record<string, unknown> = { kind: "init_create", key: "create", name: name.value, dtype: ctx.ui.createDtype, mode: m };
    for (const [k, el] of Object.entries(inputs)) msg[k] = el.value;
    ctx.send(msg as { kind: string });
  }, "dld-ed-primary");
  go.disabled = m === "generate" && !gens.length;
  form.append(h("div", { class: "dld-ed-bar" }, go), ctx.errorBox("create"));
  return form;
}

function terminalRow(ctx: PanelContext, ls: Listeners, state: InitsState, nodeId: string, t: Terminal): HTMLElement {
  const key = `init:${t.index}`;
  const listId = `dld-ed-inits-${nodeId}-${t.index}`;
  const list = h("datalist", { id: listId });
  const pick = h("input", { class: "dld-ed-input", list: listId, value: t.value_name ?? "", placeholder: "initializer (type to filter)", "data-terminal": String(t.index) });
  // The choices are filled when the field is used: thousands of options per terminal on every selection is slow.
  const fill = () => { if (!list.childElementCount) list.append(...state.items.map((it) => h("option", { value: it.name }))); };
  ls.on(pick, "focus", fill);
  ls.on(pick, "input", fill);
  const connect = () => {
    const found = state.items.find((it) => it.name === pick.value);
    if (found) ctx.send({ kind: "init_connect", value_id: found.id, node: nodeId, index: t.index, key });
    else ctx.send({ kind: "clear_error", key });
  };
  const row = h("div", { class: "dld-ed-row dld-ed-terminal" }, h("label", { class: "dld-ed-label", text: `${t.index}: ${t.name}${t.optional ? " (optional)" : ""}` }));
  const cell = h("div", { class: "dld-ed-cell" }, pick, list);
  const tools = h("span", { class: "dld-ed-tools dld-ed-tools-on" });
  if (t.state === "initializer" && t.value_id) {
    ls.on(pick, "change", connect);
    const vid = t.value_id;
    tools.append(button(ls, "✕", "Disconnect the initializer", () => ctx.send({ kind: "init_disconnect", node: nodeId, index: t.index, key })),
      button(ls, "+", "Preview the values", () => { ctx.ui.previews.has(vid) ? ctx.ui.previews.delete(vid) : ctx.ui.previews.add(vid); renderInitializers(ctx, ls, rootOf(row)); }),
      button(ls, "↗", "Open in the tensor editor", () => ctx.send({ kind: "open_tensor", value_id: vid })));
    if (ctx.ui.previews.has(vid)) cell.append(h("pre", { class: "dld-ed-preview", text: state.previews?.[vid] ?? "" }));
  } else {
    tools.append(button(ls, "Connect initializer", "Bind the chosen initializer to this free terminal", connect));
  }
  cell.append(ctx.errorBox(key) ?? "");
  row.append(cell, tools);
  return row;
}

function nodePart(ctx: PanelContext, ls: Listeners, state: InitsState): HTMLElement | null {
  const node = state.node;
  if (!node) return null;
  const part = h("div", { class: "dld-ed-node-inits" }, h("div", { class: "dld-ed-sub", text: `${node.name || node.id} (${node.op_type}): initializer terminals` }));
  const bound = node.terminals.filter((t) => t.state === "initializer");
  const free = node.terminals.filter((t) => t.state === "free");
  for (const t of bound) part.append(terminalRow(ctx, ls, state, node.id, t));
  if (!bound.length) part.append(h("div", { class: "dld-ed-muted", text: "No terminal of this node is bound to an initializer." }));
  if (free.length) {
    part.append(h("div", { class: "dld-ed-sub", text: "Free terminals" }));
    for (const t of free) part.append(terminalRow(ctx, ls, state, node.id, t));
  }
  return part;
}

/**
 * The list of all initializers is its own trait (it changes rarely); the selected node's part follows every edit
 * and selection: `nodeOnly` redraws that part and leaves the list (its scroll position and filter) alone.
 */
export function renderInitializers(ctx: PanelContext, ls: Listeners, root: HTMLElement, nodeOnly = false): void {
  const part = ctx.model.get("inits") as Omit<InitsState, "items"> | undefined;
  const items = ctx.model.get("init_items") as InitsState["items"] | undefined;
  const nodeLs = ls.child("node");
  if (!part || !items) { ls.clear(); root.replaceChildren(); return; }
  const state: InitsState = { ...part, items } as InitsState;
  const host = root.querySelector(":scope > .dld-ed-node-host");
  if (nodeOnly && host && !ctx.ui.createOpen) {
    nodeLs.clear();
    host.replaceChildren(nodePart(ctx, nodeLs, state) ?? "");
    return;
  }
  ls.clear();
  root.replaceChildren(listPart(ctx, ls, state), h("div", { class: "dld-ed-node-host" }, nodePart(ctx, nodeLs, state) ?? ""));
}
