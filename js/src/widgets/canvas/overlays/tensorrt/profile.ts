/**
 * "Set TensorRT Optimization Profile…" (seed 000 "Dynamic Shapes and TensorRT"): min / opt / max per dimension of
 * a dynamic top-level input, the optional size-min / size-max fields (they fill every wildcard axis at once, for
 * inputs with several wildcards), and the Inferred Batch Size for inputs with a single leading wildcard. The
 * kernel validates (reply errors are shown in the dialog) and stores the profile in the model as one undo step.
 */
import { el } from "../../../../common/dom";
import type { CanvasContext } from "../../context";
import { CanvasDialog } from "../../dialog";

type Dim = number | string | null;
interface InputInfo {
  name: string;
  dims: Dim[];
  dynamic: boolean;
  single_leading: boolean;
  profile: { min: number[]; opt: number[]; max: number[] } | null;
}
interface ProfileInfo {
  inputs: InputInfo[];
  input: string | null;
  inferred_batch: number | null;
}

const isWildcard = (d: Dim) => typeof d !== "number" || d < 0;
const COLUMNS = ["min", "opt", "max"] as const;

function numberInput(value: string, disabled = false): HTMLInputElement {
  const input = el("input");
  input.type = "number";
  input.min = "1";
  input.value = value;
  input.disabled = disabled;
  return input;
}

/** Open the editor on a canvas input node (`nodeId`), or with an input chooser (null: from the explorer). */
export async function openProfileDialog(ctx: CanvasContext, nodeId: string | null): Promise<void> {
  const reply = await ctx.channel.intent("trt_inputs", nodeId ? { node: nodeId } : {});
  if (!reply.ok || !reply.data) return; // the channel showed the reason
  const info = reply.data as unknown as ProfileInfo;
  const dynamic = info.inputs.filter((i) => i.dynamic);
  if (!dynamic.length) {
    ctx.toasts.show("Every input of this model has a static shape: TensorRT needs no optimization profile.", "info", 6000);
    return;
  }
  const dialog = new CanvasDialog(ctx, "profile", "Set TensorRT Optimization Profile");
  const chooser = el("select");
  for (const i of info.inputs) {
    const option = el("option", "", `${i.name}  [${i.dims.map((d) => d ?? "?").join(", ")}]${i.dynamic ? "" : "  (static)"}`);
    option.value = i.name;
    option.disabled = !i.dynamic;
    chooser.append(option);
  }
  chooser.value = info.input && dynamic.some((i) => i.name === info.input) ? info.input : dynamic[0].name;
  const chooserRow = el("label", "dld-dialog-row", "Input ");
  chooserRow.append(chooser);
  const content = el("div");
  dialog.body.append(chooserRow, content);
  if (info.input && !dynamic.some((i) => i.name === info.input)) {
    dialog.showError(`${info.input} has a static shape: it needs no profile. Choose a dynamic input.`);
  }

  let submit: () => Promise<boolean> = async () => false;
  let clear: (() => Promise<boolean>) | null = null;
  const render = () => {
    const input = info.inputs.find((i) => i.name === chooser.value) as InputInfo;
    content.replaceChildren();
    const useProfile = el("input");
    useProfile.type = "radio";
    useProfile.name = "dld-trt-mode";
    const useBatch = el("input");
    useBatch.type = "radio";
    useBatch.name = "dld-trt-mode";
    useBatch.disabled = !input.single_leading;
    const inferredNow = input.single_leading && !input.profile && info.inferred_batch !== null;
    (inferredNow ? useBatch : useProfile).checked = true;

    const modeProfile = el("label", "dld-dialog-row");
    modeProfile.append(useProfile, document.createTextNode(" Optimization profile (min / opt / max per dimension)"));
    const table = el("table", "dld-trt-dims");
    const head = el("tr");
    for (const h of ["Axis", "Dimension", "Min", "Opt", "Max"]) head.append(el("th", "", h));
    table.append(head);
    const cells: Record<(typeof COLUMNS)[number], HTMLInputElement[]> = { min: [], opt: [], max: [] };
    input.dims.forEach((d, axis) => {
      const row = el("tr");
      row.append(el("td", "", String(axis)), el("td", "", d === null ? "?" : String(d)));
      for (const c of COLUMNS) {
        const stored = input.profile?.[c][axis];
        const cell = isWildcard(d) ? numberInput(stored !== undefined ? String(stored) : "") : numberInput(String(d), true);
        cell.dataset.column = c;
        cell.dataset.axis = String(axis);
        cells[c].push(cell);
        const td = el("td");
        td.append(cell);
        row.append(td);
      }
      table.append(row);
    });
    const sizes = el("div", "dld-dialog-row", "size-min ");
    const sizeMin = numberInput("");
    sizeMin.className = "dld-trt-size-min";
    const sizeMax = numberInput("");
    sizeMax.className = "dld-trt-size-max";
    sizes.append(sizeMin, document.createTextNode(" size-max "), sizeMax);
    sizes.title = "Optional: fill the min (max) of every wildcard dimension at once";
    const fill = (column: "min" | "max", from: HTMLInputElement) => () => {
      input.dims.forEach((d, axis) => {
        if (isWildcard(d)) cells[column][axis].value = from.value;
      });
    };
    sizeMin.oninput = fill("min", sizeMin);
    sizeMax.oninput = fill("max", sizeMax);

    const modeBatch = el("label", "dld-dialog-row");
    const batch = numberInput(String(info.inferred_batch ?? 1));
    batch.className = "dld-trt-batch";
    batch.disabled = !input.single_leading;
    modeBatch.append(useBatch, document.createTextNode(" Inferred Batch Size "), batch);
    const batchNote = el(
      "div",
      "dld-dialog-note",
      input.single_leading
        ? "Applies to every input with a single leading wildcard (like ['N', 3, 224, 224]) that has no profile of its own."
        : "Not available: this input does not have exactly one wildcard, the leading one.",
    );
    content.append(modeProfile, table, sizes, modeBatch, batchNote);

    submit = async () => {
      if (useBatch.checked) {
        const n = Number(batch.value);
        if (!batch.value || !Number.isInteger(n)) {
          dialog.showError("The inferred batch size must be a whole number of 1 or more.");
          return false;
        }
        return dialog.send("set_trt_profile", { input: input.name, mode: "inferred", batch: n });
      }
      const shapes: Record<string, number[]> = {};
      for (const c of COLUMNS) {
        const missing = cells[c].findIndex((cell) => cell.value.trim() === "" || !Number.isInteger(Number(cell.value)));
        if (missing >= 0) {
          dialog.showError(`Type a whole number for the ${c} size of axis ${missing} (${input.dims[missing] ?? "?"}).`);
          cells[c][missing].focus();
          return false;
        }
        shapes[c] = cells[c].map((cell) => Number(cell.value));
      }
      return dialog.send("set_trt_profile", { input: input.name, mode: "profile", ...shapes });
    };
    clear = input.profile ? () => dialog.send("set_trt_profile", { input: input.name, mode: "clear" }) : null;
  };
  chooser.onchange = () => {
    dialog.showError("");
    render();
  };
  render();
  dialog.buttons([
    {
      label: "Clear profile",
      run: async () => {
        if (clear) return clear();
        dialog.showError("This input has no stored profile to clear.");
        return false;
      },
    },
    { label: "Cancel", run: () => true },
    { label: "OK", primary: true, run: () => submit() },
  ]);
  dialog.show();
}
