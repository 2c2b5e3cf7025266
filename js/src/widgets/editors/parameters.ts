// Parameter editor: name, attributes (set ones, then "Default Value Parameters"), op docs, or model information.
import { button, keepTyping, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { AttributeRow, ModelInfo, ParamsState } from "./messages";
import { childInfo, functionSettingsButton, instanceParameters, referenceControl, setReferenceForm, subgraphControl } from "./child_rows";

/** The mark of a value an analysis override holds (seed 001 §4.3): the running session only, never saved. */
export function overrideTag(): HTMLElement {
  return h("span", { class: "dld-ed-override", text: "analysis override",
    title: "Applied to the running analysis only: never the document, never saved. Stop Analysis or ⟲ drops it." });
}

function attributeRow(ctx: PanelContext, ls: Listeners, row: AttributeRow, state: ParamsState & { mode: "nodes" }): HTMLElement {
  const key = `attr:${row.name}`;
  const label = h("label", { class: "dld-ed-label", title: row.doc, text: row.name },
    h("span", { class: "dld-ed-type", text: row.type.toLowerCase() }), row.override ? overrideTag() : null);
  let control: HTMLElement;
  if (row.ref) {
    control = referenceControl(ctx, ls, row);
  } else if (row.subgraphs !== undefined && state.ids.length === 1) {
    control = subgraphControl(ctx, ls, row);
  } else if (row.editable && row.choices) {
    const named = (code: string) => row.choices?.find(([c]) => c === code)?.[1] ?? code;
    const select = h("select", { class: "dld-ed-select", "data-key": key, title: row.doc });
    const unset = row.mixed ? "(different values)" : row.default_text ? `default: ${named(row.default_text)}` : "(unset)";
    select.append(h("option", { value: "", text: unset, disabled: true }));
    for (const [code, name] of row.choices) select.append(h("option", { value: code, text: name }));
    select.value = row.set && !row.mixed ? row.text : "";
    ls.on(select, "change", () => ctx.commit(key, select.value, { kind: "set_attr", name: row.name, text: select.value }));
    control = select;
  } else if (!row.editable) {
    control = h("span", { class: "dld-ed-readonly", text: row.text || row.default_text || "(not editable here)" });
  } else {
    const value = row.set ? row.text : "";
    const placeholder = row.mixed ? "(different values)" : row.default_text ? `default: ${row.default_text}` : "(unset)";
    control = ctx.input(ls, key, value, (text) => ctx.commit(key, text, { kind: "set_attr", name: row.name, text }), {
      placeholder, title: row.list ? "Literal: [1, 2, 3, 4], nested [[1, 2], [3, 4]], strings 'a' ('It\\'s')" : row.doc,
    });
  }
  const tools = h("span", { class: "dld-ed-tools" });
  if (row.override) {
    tools.append(button(ls, "⟲", "Revert the analysis override (back to the model's value)",
      () => ctx.send({ kind: "revert_override", name: row.name, key }), "dld-ed-revert-override"));
  } else if (row.set && !row.required) {
    tools.append(button(ls, "⟲", "Revert to the default value", () => ctx.send({ kind: "reset_attr", name: row.name, key }), "dld-ed-revert"));
  }
  if (row.list && row.set && !row.mixed && state.ids.length === 1) {
    tools.append(button(ls, "↗", "Open in the tensor editor", () =>
      ctx.send({ kind: "open_tensor", node_id: state.ids[0], attribute: row.name })));
  }
  return h("div", { class: "dld-ed-row", "data-attr": row.name },
    label, h("div", { class: "dld-ed-cell" }, control, ctx.errorBox(key)), tools);
}

function nodesView(ctx: PanelContext, ls: Listeners, state: ParamsState & { mode: "nodes" }): HTMLElement {
  const root = h("div", { class: "dld-ed-params" });
  const head = h("div", { class: "dld-ed-head" }, h("b", { text: state.title }),
    state.since_version ? h("span", { class: "dld-ed-muted", text: ` ${state.domain || "ai.onnx"} v${state.since_version}` }) : null);
  if (state.doc) {
    head.append(button(ls, "?", "Operator documentation", () => { ctx.ui.docOpen = !ctx.ui.docOpen; rerender(); }, "dld-ed-doc-btn"));
  }
  root.append(head);
  const docBox = h("div", { class: "dld-ed-doc" + (ctx.ui.docOpen ? "" : " dld-ed-hidden"), text: state.doc });
  root.append(docBox);
  const refs = setReferenceForm(ctx, ls, state);
  if (refs) root.append(refs);
  const rerender = () => docBox.classList.toggle("dld-ed-hidden", !ctx.ui.docOpen);
  if (state.name !== null) {
    const input = ctx.input(ls, "name", state.name, (text) => ctx.commit("name", text, { kind: "rename", text }),
      { title: "Unique, valid C90 identifier" });
    root.append(h("div", { class: "dld-ed-row" }, h("label", { class: "dld-ed-label", text: "name" }),
      h("div", { class: "dld-ed-cell" }, input, ctx.errorBox("name")), h("span", { class: "dld-ed-tools" })));
  } else {
    root.append(h("div", { class: "dld-ed-muted", text: "Only the parameters the selected nodes share are shown; an edit applies to all of them in one undo step." }));
  }
  const passed = new Set((state.function?.instance_of ? state.function.parameters : []).map((p) => p.name));
  for (const row of state.attributes) if (!passed.has(row.name)) root.append(attributeRow(ctx, ls, row, state));
  const instance = instanceParameters(ctx, ls, state);
  if (instance) root.append(instance);
  if (state.defaults.length) {
    const details = h("details", { class: "dld-ed-defaults", open: ctx.ui.defaultsOpen },
      h("summary", { text: `Default Value Parameters (${state.defaults.length})` }));
    for (const row of state.defaults) details.append(attributeRow(ctx, ls, row, state));
    ls.on(details, "toggle", () => { ctx.ui.defaultsOpen = details.open; });
    root.append(details);
  }
  if (!state.attributes.length && !state.defaults.length && !instance) root.append(h("div", { class: "dld-ed-muted", text: "No parameters." }));
  return root;
}

/** A graph input or output: name, element type and shape, each one undo step (a model built from scratch gets
 * valid inputs here). */
function ioView(ctx: PanelContext, ls: Listeners, state: ParamsState & { mode: "io" }): HTMLElement {
  const root = h("div", { class: "dld-ed-params dld-ed-io" },
    h("div", { class: "dld-ed-head" }, h("b", { text: state.kind === "input" ? "Graph input" : "Graph output" })));
  const row = (label: string, key: string, control: HTMLElement, title: string) =>
    h("div", { class: "dld-ed-row", title }, h("label", { class: "dld-ed-label", text: label }),
      h("div", { class: "dld-ed-cell" }, control, ctx.errorBox(key)), h("span", { class: "dld-ed-tools" }));
  const name = ctx.input(ls, "name", state.name, (text) => ctx.commit("name", text, { kind: "rename", text }));
  const dtype = h("select", { class: "dld-ed-select dld-ed-io-dtype", "data-key": "io:dtype" });
  if (!state.dtype) dtype.append(h("option", { value: "", text: "(no type)", disabled: true }));
  for (const name of state.dtypes) dtype.append(h("option", { value: name, text: name }));
  dtype.value = state.dtype;
  ls.on(dtype, "change", () => ctx.commit("io:dtype", dtype.value, { kind: "set_io_type", dtype: dtype.value }));
  const shape = ctx.input(ls, "io:shape", state.shape, (text) => ctx.commit("io:shape", text, { kind: "set_io_type", shape: text }),
    { placeholder: "unknown rank", title: "Dims separated by commas: a size (3), a name (batch) or ? (unknown); scalar for rank 0" });
  shape.classList.add("dld-ed-io-shape");
  root.append(row("name", "name", name, "Unique tensor name"), row("element type", "io:dtype", dtype, "The tensor's element type"),
    row("shape", "io:shape", shape, "1, 3, 224, 224 · batch, 3, ?, ? · scalar · empty: unknown rank"));
  return root;
}

function modelRow(ctx: PanelContext, ls: Listeners, label: string, key: string, value: string, send: (t: string) => void, multiline = false): HTMLElement {
  const input = ctx.input(ls, key, value, (text) => { ctx.drafts.set(key, text); send(text); }, { multiline });
  return h("div", { class: "dld-ed-row" }, h("label", { class: "dld-ed-label", text: label }),
    h("div", { class: "dld-ed-cell" }, input, ctx.errorBox(key)), h("span", { class: "dld-ed-tools" }));
}

function modelView(ctx: PanelContext, ls: Listeners, m: ModelInfo, state: ParamsState): HTMLElement {
  const root = h("div", { class: "dld-ed-params" },
    h("div", { class: "dld-ed-head" }, h("b", { text: "Model information" }),
      h("span", { class: "dld-ed-muted", text: " — select a node to edit its parameters" })));
  const settings = functionSettingsButton(ctx, ls, state);
  if (settings) root.append(settings);
  const text = (field: keyof ModelInfo, label: string, multiline = false) =>
    modelRow(ctx, ls, label, `model:${field}`, String(m[field]), (t) => ctx.send({ kind: "set_model", field, text: t, key: `model:${field}` }), multiline);
  root.append(text("ir_version", "IR version"), text("producer_name", "producer"), text("producer_version", "producer version"), text("domain", "domain"),
    text("model_version", "model version"), text("graph_name", "graph name"), text("doc_string", "doc string", true));
  root.append(h("div", { class: "dld-ed-sub", text: "Opsets imported (empty version removes)" }));
  for (const o of m.opsets) {
    const key = `opset:${o.domain}`;
    root.append(modelRow(ctx, ls, o.domain || "ai.onnx", key, String(o.version), (t) => ctx.send({ kind: "set_opset", domain: o.domain, text: t, key })));
  }
  root.append(h("div", { class: "dld-ed-sub", text: "Metadata (empty value removes)" }));
  for (const e of m.metadata) {
    const key = `meta:${e.key}`;
    root.append(modelRow(ctx, ls, e.key, key, e.value, (t) => ctx.send({ kind: "set_meta", meta_key: e.key, value: t === "" ? null : t, key })));
  }
  const newKey = h("input", { class: "dld-ed-input", placeholder: "new key", "data-key": "meta:new" });
  const newValue = h("input", { class: "dld-ed-input", placeholder: "value" });
  root.append(h("div", { class: "dld-ed-row" }, newKey, newValue,
    button(ls, "+", "Add metadata", () => ctx.send({ kind: "set_meta", meta_key: newKey.value, value: newValue.value, key: "meta:new" }))),
    ctx.errorBox("meta:new"));
  return root;
}

export function renderParameters(ctx: PanelContext, ls: Listeners, root: HTMLElement): void {
  const state = ctx.model.get("params") as ParamsState | undefined;
  // The same node or graph input shown again (the kernel answered an earlier edit): a field being typed in keeps
  // its text, focus and caret. Re-rendering dropped them: a shape typed right after choosing an element type was
  // lost when that choice's answer arrived.
  const subject = state && "mode" in state ? JSON.stringify([state.mode, "ids" in state ? state.ids : null]) : "";
  keepTyping(root, subject, () => renderParametersNow(ctx, ls, root, state));
}

function renderParametersNow(ctx: PanelContext, ls: Listeners, root: HTMLElement, state: ParamsState | undefined): void {
  ls.clear();
  if (!state || !("mode" in state)) { root.replaceChildren(); return; }
  if (state.mode === "model" && state.child) {
    const info = childInfo(state) as HTMLElement;
    const settings = functionSettingsButton(ctx, ls, state);
    if (settings) info.append(settings);
    root.replaceChildren(info);
    return;
  }
  if (state.mode === "io") { root.replaceChildren(ioView(ctx, ls, state)); return; }
  root.replaceChildren(state.mode === "model" ? modelView(ctx, ls, state.model, state) : nodesView(ctx, ls, state));
}
