// Subgraph links and function-parameter references in the parameter editor (Python half:
// dld_jupyter/widgets/editors/child_edits.py; seed 000 "Subgraphs", "Local Functions").
import { button, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { AttributeRow, ParamsState } from "./messages";

type NodesState = ParamsState & { mode: "nodes" };

/** A GRAPH / GRAPHS attribute: one link per subgraph (opens it), "−" per graph of a list, "+" to create one. */
export function subgraphControl(ctx: PanelContext, ls: Listeners, row: AttributeRow): HTMLElement {
  const key = `attr:${row.name}`;
  const list = row.type === "GRAPHS";
  const box = h("div", { class: "dld-ed-subgraphs", "data-attr": row.name });
  for (const s of row.subgraphs ?? []) {
    const label = `${s.name || "(unnamed)"} (${s.node_count} nodes)`;
    const link = h("a", { class: "dld-ed-subgraph-link", href: "#", title: `Open ${label} in its own designer`, text: `↗ ${label}` });
    ls.on(link, "click", (e) => { e.preventDefault(); void ctx.send({ kind: "open_subgraph", attribute: row.name, index: list ? s.index : null, key }); });
    const line = h("div", { class: "dld-ed-subgraph" }, link);
    if (list) line.append(button(ls, "−", "Remove this subgraph from the list (one undo step)", () =>
      void ctx.send({ kind: "remove_subgraph", attribute: row.name, index: s.index, key }), "dld-ed-subgraph-remove"));
    box.append(line);
  }
  if (!(row.subgraphs ?? []).length) box.append(h("span", { class: "dld-ed-muted", text: "(no subgraph)" }));
  const form = createForm(ctx, ls, row);
  box.append(h("div", { class: "dld-ed-bar" }, button(ls, "+", list ? "Create a subgraph and add it to the list" : "Create a subgraph for this parameter", () => {
    ctx.ui.fields.set(`sg-open:${row.name}`, ctx.ui.fields.get(`sg-open:${row.name}`) === "1" ? "" : "1");
    form.classList.toggle("dld-ed-hidden");
  }, "dld-ed-subgraph-add")), form, ctx.errorBox(key));
  return box;
}

/** Name (unique in its scope), duplicate of an existing graph, open once created. */
function createForm(ctx: PanelContext, ls: Listeners, row: AttributeRow): HTMLElement {
  const key = `attr:${row.name}`;
  const name = ctx.field(ls, `sg-name:${row.name}`, "", "subgraph name (unique in its scope)");
  const dup = h("select", { class: "dld-ed-select dld-ed-subgraph-dup" });
  dup.append(h("option", { value: "", text: "empty graph" }));
  for (const d of row.duplicates ?? []) dup.append(h("option", { value: String(d.slot), text: `duplicate ${d.label}` }));
  const open = h("input", { type: "checkbox", class: "dld-ed-subgraph-open", checked: true });
  const form = h("div", { class: "dld-ed-create dld-ed-subgraph-form" + (ctx.ui.fields.get(`sg-open:${row.name}`) === "1" ? "" : " dld-ed-hidden") },
    h("label", { class: "dld-ed-field" }, "Name", name), h("label", { class: "dld-ed-field" }, "Start from", dup),
    h("label", {}, open, " open it once created"),
    h("div", { class: "dld-ed-bar" }, button(ls, "Create", "Create the subgraph (one undo step)", () => {
      ctx.ui.fields.delete(`sg-open:${row.name}`);
      void ctx.send({ kind: "create_subgraph", attribute: row.name, name: name.value.trim(), duplicate_of: dup.value === "" ? null : Number(dup.value), open: open.checked, key });
    }, "dld-ed-primary dld-ed-subgraph-create")));
  return form;
}

/** An attribute bound to a function parameter: a drop-down of the compatible parameters and X to remove it. */
export function referenceControl(ctx: PanelContext, ls: Listeners, row: AttributeRow): HTMLElement {
  const key = `attr:${row.name}`;
  const select = h("select", { class: "dld-ed-select dld-ed-ref", "data-key": key, title: "Function parameter this attribute takes its value from" });
  for (const [name, ok] of row.ref_choices ?? []) select.append(h("option", { value: name, text: `@${name}`, disabled: !ok }));
  select.value = row.ref ?? "";
  ls.on(select, "change", () => void ctx.send({ kind: "set_ref", attribute: row.name, parameter: select.value, key }));
  const clear = button(ls, "X", "Remove the reference (back to the attribute's default value)", () =>
    void ctx.send({ kind: "clear_ref", attribute: row.name, key }), "dld-ed-ref-clear");
  return h("div", { class: "dld-ed-bar" }, select, clear);
}

/** "Set Reference Parameter": an attribute without a reference, and a compatible function parameter. */
export function setReferenceForm(ctx: PanelContext, ls: Listeners, state: NodesState): HTMLElement | null {
  if (!state.in_function || state.ids.length !== 1) return null;
  const params = state.function?.parameters ?? [];
  const rows = [...state.attributes, ...state.defaults].filter((r) => !r.ref && r.type !== "GRAPH" && r.type !== "GRAPHS");
  const key = "ref:new";
  const attr = h("select", { class: "dld-ed-select dld-ed-ref-attr" });
  for (const r of rows) attr.append(h("option", { value: r.name, text: `${r.name} (${r.type.toLowerCase()})` }));
  const param = h("select", { class: "dld-ed-select dld-ed-ref-param" });
  const fill = () => {
    const row = rows.find((r) => r.name === attr.value);
    const typeOf = (name: string) => params.find((p) => p.name === name)?.type.toLowerCase() ?? "";
    param.replaceChildren(...(row?.ref_choices ?? []).map(([name, ok]) =>
      h("option", { value: name, text: `${name} (${typeOf(name)})`, disabled: !ok })));
    const first = [...param.options].find((o) => !o.disabled);
    param.value = first ? first.value : "";
  };
  ls.on(attr, "change", fill);
  fill();
  const open = ctx.ui.fields.get("ref:open") === "1";
  const form = h("div", { class: "dld-ed-create dld-ed-ref-form" + (open ? "" : " dld-ed-hidden") },
    h("label", { class: "dld-ed-field" }, "Parameter of this operator", attr),
    h("label", { class: "dld-ed-field" }, "Local function parameter", param),
    params.length ? "" : h("div", { class: "dld-ed-muted", text: "The function has no parameters yet: add one in Local Function Settings." }),
    h("div", { class: "dld-ed-bar" }, button(ls, "OK", "Bind the attribute to the parameter (one undo step)", () => {
      ctx.ui.fields.delete("ref:open");
      void ctx.send({ kind: "set_ref", attribute: attr.value, parameter: param.value, key });
    }, "dld-ed-primary dld-ed-ref-ok")), ctx.errorBox(key));
  const toggle = button(ls, "Set Reference Parameter", "Make one of this operator's parameters take a local function parameter's value", () => {
    ctx.ui.fields.set("ref:open", open ? "" : "1");
    form.classList.toggle("dld-ed-hidden");
  }, "dld-ed-ref-set");
  return h("div", {}, toggle, form);
}

/** With no node selected in a function document: the way to Local Function Settings. */
export function functionSettingsButton(ctx: PanelContext, ls: Listeners, state: ParamsState): HTMLElement | null {
  if (!state.in_function) return null;
  const names = (state.function?.parameters ?? []).map((p) => `${p.name}: ${p.type.toLowerCase()}`).join(", ") || "none";
  return h("div", { class: "dld-ed-bar" }, button(ls, "Edit Local Function Parameters", "Open Local Function Settings", () =>
    void ctx.send({ kind: "function_settings", key: "function" }), "dld-ed-function-settings"),
  h("span", { class: "dld-ed-muted", text: `parameters: ${names}` }), ctx.errorBox("function"));
}

/** A function instance: the values it passes for the function's parameters (set, or the default shown). */
export function instanceParameters(ctx: PanelContext, ls: Listeners, state: NodesState): HTMLElement | null {
  const fn = state.function;
  if (!fn?.instance_of || state.ids.length !== 1) return null;
  const box = h("div", { class: "dld-ed-instance-params" },
    h("div", { class: "dld-ed-sub", text: `Local function parameters (${fn.instance_of})` }));
  if (!fn.parameters.length) box.append(h("div", { class: "dld-ed-muted", text: "The function has no parameters." }));
  for (const p of fn.parameters) {
    const key = `attr:${p.name}`;
    const undefinedType = p.type === "UNDEFINED";
    const placeholder = p.default_text ? `default: ${p.default_text}` : undefinedType ? "required: a typed value (1, 0.5, [1, 2], 'a')" : "(unset)";
    const input = ctx.input(ls, key, p.set ? p.text ?? "" : "", (text) => ctx.commit(key, text, { kind: "set_attr", name: p.name, text }), { placeholder });
    const tools = h("span", { class: "dld-ed-tools" });
    if (p.set) tools.append(button(ls, "⟲", "Take the function's default again", () => void ctx.send({ kind: "reset_attr", name: p.name, key }), "dld-ed-revert"));
    box.append(h("div", { class: "dld-ed-row", "data-param": p.name },
      h("label", { class: "dld-ed-label", text: p.name }, h("span", { class: "dld-ed-type", text: p.type.toLowerCase() })),
      h("div", { class: "dld-ed-cell" }, input, ctx.errorBox(key)), tools));
  }
  return box;
}

/** With no node selected in a subgraph / function document: what it is, instead of the model's fields. */
export function childInfo(state: ParamsState): HTMLElement | null {
  const child = state.child;
  if (!child) return null;
  const what = child.kind === "subgraph" ? "Subgraph" : "Local function";
  const box = h("div", { class: "dld-ed-params dld-ed-child-info" },
    h("div", { class: "dld-ed-head" }, h("b", { text: `${what}: ${child.title}` })),
    h("div", { class: "dld-ed-muted", text: `Edited as a document of its own: “${child.confirm}” writes it into its parent as one undo step there; save the model from the model's designer. Select a node to edit its parameters.` }));
  if (child.kind === "subgraph") {
    box.append(h("div", { class: "dld-ed-sub", text: `Outer references (${child.outer.length}): values of the enclosing graph it reads` }),
      h("div", { class: "dld-ed-muted dld-ed-outer", text: child.outer.join(", ") || "none" }));
  }
  return box;
}
