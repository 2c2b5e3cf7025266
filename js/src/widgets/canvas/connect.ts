/**
 * Terminal gestures: drag from a terminal to another to link them (rubber band on the overlay), double-click a free
 * terminal to make a graph input/output, double-click a constant terminal to show or hide that Constant.
 */
import type { CanvasContext } from "./context";
import { modelPoint } from "./context";
import { TerminalHit, terminalAt } from "./geometry";

const HIT_RADIUS_PX = 10;

export function terminalUnder(ctx: CanvasContext, x: number, y: number): TerminalHit | null {
  if (ctx.cy.zoom() < 0.3) return null; // terminals are not drawn (level of detail)
  const radius = Math.max(HIT_RADIUS_PX / ctx.cy.zoom(), 6);
  let hit: TerminalHit | null = null;
  ctx.cy.nodes().forEach((el) => {
    if (hit) return;
    const n = ctx.store.nodes.get(el.id());
    if (!n || n.kind === "group") return;
    const p = el.position();
    if (Math.abs(p.x - x) > n.width / 2 + radius || Math.abs(p.y - y) > n.height / 2 + radius) return;
    hit = terminalAt(n, p.x, p.y, x, y, radius);
  });
  return hit;
}

export function installConnect(ctx: CanvasContext): void {
  const { listeners, stage, overlay } = ctx;
  let from: TerminalHit | null = null;

  listeners.dom(stage, "mousedown", (event: MouseEvent) => {
    if (event.button !== 0) return;
    const p = modelPoint(ctx, event);
    from = terminalUnder(ctx, p.x, p.y);
    if (!from) return;
    // Capture phase: cytoscape must not start a node drag or a pan from a terminal.
    event.stopPropagation();
    event.preventDefault();
    overlay.band = { x1: from.x, y1: from.y, x2: p.x, y2: p.y };
    overlay.schedule();
  }, { capture: true });

  listeners.dom(window, "mousemove", (event: MouseEvent) => {
    const p = modelPoint(ctx, event);
    ctx.pointer = p;
    if (!from || !overlay.band) return;
    overlay.band.x2 = p.x;
    overlay.band.y2 = p.y;
    overlay.schedule();
  });

  listeners.dom(window, "mouseup", (event: MouseEvent) => {
    if (!from) return;
    const start = from;
    from = null;
    overlay.band = null;
    overlay.schedule();
    const p = modelPoint(ctx, event);
    const to = terminalUnder(ctx, p.x, p.y);
    if (!to || to.node === start.node || to.side === start.side) {
      // A click (or double-click) on one terminal is not a failed link: say nothing then.
      const same = to && to.node === start.node && to.side === start.side && to.index === start.index;
      if (to && !same) ctx.toasts.show("Link an output (circle) to an input (triangle) of another node.", "warning");
      return;
    }
    const [src, dst] = start.side === "out" ? [start, to] : [to, start];
    void ctx.channel.intent("connect", { src: src.node, src_index: src.index, dst: dst.node, dst_index: dst.index });
  });

  listeners.dom(stage, "dblclick", (event: MouseEvent) => {
    const p = modelPoint(ctx, event);
    const hit = terminalUnder(ctx, p.x, p.y);
    if (!hit) return;
    event.stopPropagation();
    const state = hit.terminal.state;
    if (state === "constant" || (hit.side === "in" && ctx.store.nodes.get(hit.node) && isShownConstantInput(ctx, hit))) {
      void ctx.channel.intent("toggle_constant", { node: hit.node, index: hit.index });
    } else if (state === "free" || state === "placeholder") {
      const action = hit.side === "in" ? "add_graph_input" : "add_graph_output";
      void ctx.channel.intent(action, { node: hit.node, index: hit.index });
    }
  }, { capture: true });
}

/** A linked input fed by a visible Constant node: double-click hides that constant again. */
function isShownConstantInput(ctx: CanvasContext, hit: TerminalHit): boolean {
  for (const e of ctx.store.edges.values()) {
    if (e.target === hit.node && e.target_index === hit.index) {
      const src = ctx.store.nodes.get(e.source);
      return !!src && src.op_type === "Constant" && src.kind === "op";
    }
  }
  return false;
}
