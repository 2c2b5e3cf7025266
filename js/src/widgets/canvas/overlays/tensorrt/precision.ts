/**
 * "Set Layer Precision…" (seed 000 "Specifying Layer Precisions to TensorRT"): a dialog of the seed's precisions
 * plus No Constraint for the selected layers, and the quick menu the glyph's precision badge opens. Either sends
 * one `set_precision` intent: one undo step, stored in node metadata, shown in the badge and the TRT-Prec column.
 */
import { el } from "../../../../common/dom";
import type { CanvasContext } from "../../context";
import { CanvasDialog } from "../../dialog";

/** The seed's list, as dld_jupyter/formats/trt_metadata.py LAYER_PRECISIONS (a Python test keeps them equal). */
export const FLOAT_PRECISIONS = ["fp32", "fp16", "bf16", "fp8"];
export const INTEGRAL_PRECISIONS = ["int64", "int32", "int8", "int4", "uint8", "bool"];
export const NO_CONSTRAINT = "No Constraint";

/** The layers among node ids (graph inputs/outputs and groups have no precision). */
export function layerIds(ctx: CanvasContext, ids: string[]): string[] {
  return ids.filter((id) => {
    const kind = ctx.store.nodes.get(id)?.kind;
    return kind === "op" || (kind === undefined && !id.startsWith("g:")); // not drawn (explorer): the kernel checks
  });
}

export function openPrecisionDialog(ctx: CanvasContext, ids: string[]): void {
  const layers = layerIds(ctx, ids);
  if (!layers.length) {
    ctx.toasts.show("Select the layers (operator nodes) to constrain first.", "warning");
    return;
  }
  const current = new Set(layers.map((id) => ctx.store.nodes.get(id)?.precision ?? ""));
  const preset = current.size === 1 ? [...current][0] || NO_CONSTRAINT : "";
  const dialog = new CanvasDialog(ctx, "precision", "Set Layer Precision");
  const note = layers.length === 1 ? `Layer ${ctx.store.nodes.get(layers[0])?.name ?? layers[0]}` : `${layers.length} layers`;
  dialog.body.append(
    el("div", "dld-dialog-note", `${note}. TensorRT obeys these under the Obey or Prefer Precision Constraints typing mode.`),
  );
  const radios: HTMLInputElement[] = [];
  const group = (title: string, values: string[]) => {
    dialog.body.append(el("div", "dld-trt-heading", title));
    const grid = el("div", "dld-trt-choices");
    for (const value of values) {
      const label = el("label");
      const radio = el("input");
      radio.type = "radio";
      radio.name = "dld-trt-precision";
      radio.value = value;
      radio.checked = value === preset;
      radios.push(radio);
      label.append(radio, document.createTextNode(` ${value}`));
      grid.append(label);
    }
    dialog.body.append(grid);
  };
  group("Floating point", FLOAT_PRECISIONS);
  group("Integral", INTEGRAL_PRECISIONS);
  group("None", [NO_CONSTRAINT]);
  dialog.buttons([
    { label: "Cancel", run: () => true },
    {
      label: "OK",
      primary: true,
      run: async () => {
        const chosen = radios.find((r) => r.checked)?.value;
        if (!chosen) {
          dialog.showError("Choose a precision, or No Constraint to remove the constraint.");
          return false;
        }
        return dialog.send("set_precision", { nodes: layers, precision: chosen === NO_CONSTRAINT ? null : chosen });
      },
    },
  ]);
  dialog.show();
}

/** The badge's quick menu: change or remove one layer's constraint, or open the dialog. */
export function openPrecisionQuickMenu(ctx: CanvasContext, id: string, at: { x: number; y: number }): void {
  ctx.root.querySelector(".dld-trt-quick")?.remove();
  const current = ctx.store.nodes.get(id)?.precision ?? null;
  const menu = el("div", "dld-menu dld-trt-quick");
  const close = () => menu.remove();
  const item = (label: string, run: () => void, isCurrent = false) => {
    const row = el("div", "dld-menu-item" + (isCurrent ? " current" : ""), (isCurrent ? "✓ " : "") + label);
    row.onmousedown = (e) => e.stopPropagation();
    row.onclick = () => {
      close();
      run();
    };
    menu.append(row);
  };
  const set = (precision: string | null) => void ctx.channel.intent("set_precision", { nodes: [id], precision });
  for (const value of [...FLOAT_PRECISIONS, ...INTEGRAL_PRECISIONS]) item(value, () => set(value), value === current);
  item("Remove constraint (No Constraint)", () => set(null));
  item("Set Layer Precision…", () => openPrecisionDialog(ctx, [id]));
  menu.style.left = `${at.x}px`;
  menu.style.top = `${at.y}px`;
  ctx.root.appendChild(menu); // badge.ts closes it on the next press elsewhere on the canvas
}
