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

function itemRow(ctx: PanelContext, ls: Listeners, it: InitItem): HTMLElement {
  const row = h("tr", { "data-init": it.name },
    h("td", { class: "dld-ed-name", text: it.name, title: it.location ? `external: ${it.location}` : it.name }),
    h("td", { text: it.dtype }), h("td", { text: `[${it.shape.join(", ")}]` }), h("td", { text: it.size.toLocaleString() }),
    h("td", { text: it.external ? "external" : "", title: it.location ?? "" }),
    h("td", { text: String(it.users), title: "nodes using it" }),
    h("td", {}, button(ls, "↗", "Open in the tensor editor", () => ctx.send({ kind: "open_tensor", value_id: it.id })),
      button(ls, "✕", "Delete (disconnects its users)", () => ctx.send({ kind: "init_delete", value_id: it.id, key: "list" }), "dld-ed-danger")));
  ls.on(row, "dblclick", () => ctx.send({ kind: "open_tensor", value_id: it.id }));
  return row;
}

function listPart(ctx: PanelContext, ls: Listeners, state: InitsState): HTMLElement {
  const filter = h("input", { class: "dld-ed-input dld-ed-filter", placeholder: "Filter by name", value: ctx.ui.filter });
  const body = h("tbody");
  const rows = state.items.map((it) => { const r = itemRow(ctx, ls, it); body.append(r); return [it.name.toLowerCase(), r] as const; });
  const apply = () => {
    const f = filter.value.toLowerCase();
    ctx.ui.filter = filter.value;
    for (const [name, r] of rows) r.style.display = name.includes(f) ? "" : "none";
  };
  ls.on(filter, "input", apply);
  apply();
  const table = h("table", { class: "dld-ed-table" },
    h("thead", {}, h("tr", {}, ...["name", "type", "shape", "size", "storage", "users", ""].map((t) => h("th", { text: t })))), body);
  const create = button(ls, ctx.ui.createOpen ? "Close" : "Create Initializer", "Create a new initializer", () => {
    ctx.ui.createOpen = !ctx.ui.createOpen; renderInitializers(ctx, ls, rootOf(create));
  });
  return h("div", {}, h("div", { class: "dld-ed-bar" }, filter, create, h("span", { class: "dld-ed-muted", text: `${state.items.length} initializers` })),
    ctx.errorBox("list"), ctx.ui.createOpen ? createForm(ctx, ls, state) : null, h("div", { class: "dld-ed-scroll" }, table));
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
  for (const it of state.items) list.append(h("option", { value: it.name }));
  const pick = h("input", { class: "dld-ed-input", list: listId, value: t.value_name ?? "", placeholder: "initializer (type to filter)", "data-terminal": String(t.index) });
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

export function renderInitializers(ctx: PanelContext, ls: Listeners, root: HTMLElement): void {
  ls.clear();
  // The list of all initializers is its own trait: it changes rarely, the selected node's part often.
  const part = ctx.model.get("inits") as Omit<InitsState, "items"> | undefined;
  const items = ctx.model.get("init_items") as InitsState["items"] | undefined;
  if (!part || !items) { root.replaceChildren(); return; }
  const state: InitsState = { ...part, items } as InitsState;
  root.replaceChildren(listPart(ctx, ls, state), nodePart(ctx, ls, state) ?? "");
}
