/**
 * Subgraphs and local functions on the canvas (seed 000 "Subgraphs", "Local Functions"): the context menu's
 * "Open Subgraph ▸ <attribute>", "Open Local Function", "Inline Function" and "Create Function from Selection…".
 * Opening is an intent; the kernel opens the child designer in the designer's document tabs.
 */
import type { NodeData } from "../../common/protocol";
import type { CanvasContext } from "./context";
import { selectedNodeIds } from "./context";
import { el } from "../../common/dom";
import { CanvasDialog } from "./dialog";
import type { Item } from "./popup_menu";

/** "branches[2]" -> {attribute: "branches", index: 2}; "body" -> {attribute: "body", index: null}. */
export function parseSlot(slot: string): { attribute: string; index: number | null } {
  const m = /^(.*)\[(\d+)\]$/.exec(slot);
  return m ? { attribute: m[1], index: Number(m[2]) } : { attribute: slot, index: null };
}

export function openSubgraph(ctx: CanvasContext, node: string, attribute: string, index: number | null): void {
  void ctx.channel.intent("open_subgraph", { node, attribute, index });
}

export function openFunction(ctx: CanvasContext, node: string): void {
  void ctx.channel.intent("open_function", { node });
}

/** Items for a node: its subgraphs, or its local function. */
export function childItems(ctx: CanvasContext, data: NodeData): Item[] {
  const items: Item[] = [];
  if (data.kind !== "op") return items;
  for (const slot of data.subgraphs ?? []) {
    const { attribute, index } = parseSlot(slot);
    items.push({ label: `Open Subgraph ▸ ${slot}`, run: () => openSubgraph(ctx, data.id, attribute, index) });
  }
  if (data.function) {
    items.push({ label: "Open Local Function", run: () => openFunction(ctx, data.id) });
    items.push({ label: "Inline Function", run: () => void ctx.channel.intent("inline_function", { node: data.id }) });
  }
  return items;
}

/** Items for the selection: make a function of it. */
export function selectionItems(ctx: CanvasContext): Item[] {
  const nodes = selectedNodeIds(ctx).filter((id) => ctx.store.nodes.get(id)?.kind === "op");
  return [{ label: "Create Function from Selection…", run: () => createFunctionDialog(ctx, nodes), disabled: !nodes.length }];
}

/** Name and domain of the new function; the kernel's refusal (a name taken, an invalid selection) shows inside. */
export function createFunctionDialog(ctx: CanvasContext, nodes: string[]): CanvasDialog {
  const dialog = new CanvasDialog(ctx, "create-function", "Create Function from Selection");
  const note = el("div", "dld-dialog-note", `${nodes.length} selected node(s) become the body of a new local function and one instance of it; its inputs and outputs are the links cut by the selection.`);
  const name = el("input", "dld-fn-name");
  name.placeholder = "function name (e.g. Block)";
  const domain = el("input", "dld-fn-domain");
  domain.placeholder = "domain (e.g. local)";
  domain.value = "local";
  const row = (label: string, input: HTMLElement) => {
    const r = el("label", "dld-dialog-row");
    const text = el("span", "", label);
    text.style.minWidth = "56px"; // the inputs line up
    r.append(text, input);
    return r;
  };
  dialog.body.append(note, row("Name", name), row("Domain", domain));
  dialog.buttons([
    { label: "Cancel", run: () => true },
    {
      label: "Create",
      primary: true,
      run: () => dialog.send("create_function_from_selection", { nodes, name: name.value.trim(), domain: domain.value.trim() }),
    },
  ]);
  dialog.show();
  name.focus();
  return dialog;
}
