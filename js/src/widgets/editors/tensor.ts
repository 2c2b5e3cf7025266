// Tensor editor: view and edit one tensor (values, .npy, convert, sparse and external fields); the name is fixed.
import { button, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { TensorState } from "./messages";
import { overrideTag } from "./parameters";

function row(label: string, ...els: (HTMLElement | string)[]): HTMLElement {
  return h("div", { class: "dld-ed-row" }, h("label", { class: "dld-ed-label", text: label }), h("div", { class: "dld-ed-cell" }, ...els));
}

export function renderTensor(ctx: PanelContext, ls: Listeners, root: HTMLElement): void {
  ls.clear();
  const t = ctx.model.get("tensor") as TensorState | undefined;
  if (!t || !t.open) {
    root.replaceChildren(h("div", { class: "dld-ed-muted", text: "Open an initializer (↗ in the Initializers tab) or a tensor parameter to view and edit it here." }));
    return;
  }
  const part = h("div", { class: "dld-ed-tensor" },
    h("div", { class: "dld-ed-head" }, h("b", { text: t.name ?? "", title: "The name is edited elsewhere (it is not editable here)" }),
      h("span", { class: "dld-ed-muted", "data-tensor-info": "", text: ` ${t.dtype} [${(t.shape ?? []).join(", ")}] — ${(t.size ?? 0).toLocaleString()} elements${t.external ? " — external" : ""}` }),
      t.override ? overrideTag() : null,
      t.override ? button(ls, "⟲", "Revert the analysis override (back to the model's values)",
        () => ctx.send({ kind: "revert_override", key: "tensor" }), "dld-ed-revert-override") : null));
  if (t.external) {
    const ext = t.external;
    const loc = ctx.field(ls, "tensor:location", ext.location);
    const off = ctx.field(ls, "tensor:offset", String(ext.offset));
    const len = ctx.field(ls, "tensor:length", ext.length === null ? "" : String(ext.length), "(the tensor's size)");
    part.append(h("div", { class: "dld-ed-sub", text: "External data (path relative to the model's folder)" }),
      row("file", loc), row("offset", off), row("length", len),
      h("div", { class: "dld-ed-bar" }, button(ls, "Apply", "Point the tensor at these bytes", () =>
        ctx.send({ kind: "tensor_external", key: "external", location: loc.value, offset: off.value, length: len.value }))),
      ctx.errorBox("external"));
  } else if (t.editable) {
    const area = ctx.input(ls, "tensor", t.text ?? "", () => undefined, { multiline: true, explicit: true }) as HTMLTextAreaElement;
    area.classList.add("dld-ed-values");
    const apply = () => ctx.commit("tensor", area.value, { kind: "tensor_set", text: area.value });
    ls.on<KeyboardEvent>(area, "keydown", (e) => { if (e.key === "Enter" && e.ctrlKey) { e.preventDefault(); apply(); } });
    part.append(h("div", { class: "dld-ed-sub", text: "Values (the shape follows the edit; Ctrl+Enter applies)" }), area,
      h("div", { class: "dld-ed-bar" }, button(ls, "Apply values", "Replace the values", apply, "dld-ed-primary")), ctx.errorBox("tensor"));
  } else {
    part.append(h("div", { class: "dld-ed-muted", text: `More than 10,000 elements: not editable as text; replace it from a .npy file.` }), ctx.errorBox("tensor"));
  }
  const path = ctx.field(ls, "tensor:npy", "", "path/to/file.npy");
  part.append(h("div", { class: "dld-ed-sub", text: "NumPy file (read and written by the kernel)" }),
    h("div", { class: "dld-ed-bar" }, path,
      button(ls, "Replace from .npy", "Load values (the type must match)", () => ctx.send({ kind: "tensor_load", path: path.value, key: "tensor" })),
      button(ls, "Export to .npy", "Save the values", () => ctx.send({ kind: "tensor_export", path: path.value, key: "tensor" }))));
  const targets = t.targets ?? [];
  const conv = h("select", { class: "dld-ed-select", "data-field": "convert", disabled: !targets.length });
  for (const d of targets) conv.append(h("option", { value: d, text: d }));
  if (targets.includes("float16")) conv.value = "float16";
  const convBtn = button(ls, "Convert", "Convert the data to another type (precision may be lost)", () =>
    ctx.send({ kind: "tensor_convert", dtype: conv.value, key: "convert" }));
  convBtn.disabled = !targets.length;
  part.append(h("div", { class: "dld-ed-sub", text: "Convert data type" }),
    h("div", { class: "dld-ed-bar" }, conv, convBtn,
      targets.length ? null : h("span", { class: "dld-ed-muted", text: "Not available for external, bool or string tensors." })),
    ctx.errorBox("convert"));
  if (t.sparse) {
    const sv = ctx.field(ls, "tensor:sparse-values", t.sparse.values);
    const si = ctx.field(ls, "tensor:sparse-indices", t.sparse.indices);
    const sd = ctx.field(ls, "tensor:sparse-shape", t.sparse.dense_shape);
    const details = h("details", { class: "dld-ed-defaults" }, h("summary", { text: "Sparse fields (non-zero values, linear indices, dense shape)" }),
      row("values", sv), row("indices", si), row("dense shape", sd),
      h("div", { class: "dld-ed-bar" }, button(ls, "Apply sparse", "Rebuild the tensor from these fields", () =>
        ctx.send({ kind: "tensor_sparse", key: "sparse", values: sv.value, indices: si.value, dense_shape: sd.value }))),
      ctx.errorBox("sparse"));
    if (ctx.errors().sparse) details.open = true;
    part.append(details);
  }
  root.replaceChildren(part);
}
