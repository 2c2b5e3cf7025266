/**
 * The open button in the top-right corner of a Loop/If/Scan glyph and of a local-function instance (drawn by the
 * stylesheet's `node.opens` background image). A click on it opens the node's only subgraph, or lists its subgraphs
 * (asked of the kernel: name and size of each) and opens the one chosen, or opens the instance's function
 * definition (seed 000).
 */
import type { NodeData } from "../../common/protocol";
import type { CanvasContext } from "./context";
import { openFunction, openSubgraph } from "./child_menu";
import { popupMenu } from "./popup_menu";

export const BUTTON = 14;
export const INSET = 3;

/** Whether model point (x, y) is on the open button of `n` centred at (cx, cy) (a little slack around it). */
export function onOpenButton(n: NodeData, cx: number, cy: number, x: number, y: number, slack = 3): boolean {
  const right = cx + n.width / 2 - INSET;
  const top = cy - n.height / 2 + INSET;
  return x >= right - BUTTON - slack && x <= right + slack && y >= top - slack && y <= top + BUTTON + slack;
}

interface Slot { attribute: string; index: number | null; name: string; node_count: number }

export function installSubgraphButton(ctx: CanvasContext): void {
  // A click on the button opens, it does not select: the node's selection is put back as it was before the press.
  let wasSelected = true;
  ctx.listeners.cy(ctx.cy, "tapstart", "node.opens", (event) => {
    wasSelected = event.target.selected();
  });
  ctx.listeners.cy(ctx.cy, "tap", "node.opens", (event) => {
    const data = ctx.store.nodes.get(event.target.id());
    if (!data || data.kind !== "op") return;
    const p = event.target.position();
    if (!onOpenButton(data, p.x, p.y, event.position.x, event.position.y)) return;
    const node = event.target;
    if (!wasSelected) window.setTimeout(() => node.unselect(), 0);
    if (data.function && !data.subgraphs?.length) {
      openFunction(ctx, data.id);
      return;
    }
    const at = event.renderedPosition ?? { x: 0, y: 0 };
    void ctx.channel.intent("subgraph_slots", { node: data.id }).then((reply) => {
      if (!reply.ok || !reply.data) return;
      const slots = (reply.data.slots ?? []) as Slot[];
      if (slots.length === 1) {
        // A Loop or Scan has one body: open it (a one-item menu read as a tooltip, and cost a second click).
        openSubgraph(ctx, data.id, slots[0].attribute, slots[0].index);
        return;
      }
      const items = slots.map((s) => ({
        label: `${s.index === null ? s.attribute : `${s.attribute}[${s.index}]`} — ${s.name || "(unnamed)"} (${s.node_count} nodes)`,
        run: () => openSubgraph(ctx, data.id, s.attribute, s.index),
      }));
      if (!items.length) items.push({ label: "No subgraph", run: () => undefined, disabled: true } as never);
      popupMenu(ctx, items, at, "subgraphs");
    });
  });
}
