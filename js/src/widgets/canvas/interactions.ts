/**
 * Node gestures: selection (synced to Python's `selection` trait), drags (positions go to the document as one
 * `move` intent when the drag ends), double-click on a group to expand/collapse it, drop of an op from the palette
 * (one of its Analysis category: an analysis layer after the node dropped on, a Mix also reading the one other
 * selected node; the kernel refuses it, as a toast, when nothing is analysed).
 */
import type { CanvasContext } from "./context";
import { modelPoint, selectedNodeIds } from "./context";
import { ANALYSIS_DOMAIN, OP_DRAG_MIME } from "../../common/protocol";
import { terminalAt } from "./geometry";

export function installInteractions(ctx: CanvasContext): void {
  const { cy, listeners, model } = ctx;
  let selectionTimer = 0;
  let applyingKernelSelection = false;

  // Selection: Python must know it (editor panels follow it); debounced so a box select is one update.
  listeners.cy(cy, "select unselect", null, () => {
    if (applyingKernelSelection) return;
    clearTimeout(selectionTimer);
    selectionTimer = window.setTimeout(() => {
      model.set("selection", selectedNodeIds(ctx).filter((id) => ctx.store.nodes.get(id)?.kind !== "group"));
      model.save_changes();
    }, 60);
  });
  listeners.add(() => clearTimeout(selectionTimer));

  listeners.model(model, "change:selection", () => {
    const wanted = new Set<string>(model.get("selection") ?? []);
    const current = new Set(selectedNodeIds(ctx));
    if (wanted.size === current.size && [...wanted].every((id) => current.has(id))) return;
    applyingKernelSelection = true;
    cy.batch(() => {
      cy.nodes(":selected").unselect();
      cy.nodes().filter((n) => wanted.has(n.id())).select();
    });
    applyingKernelSelection = false;
  });

  // Drag end: cytoscape fires `dragfree` per node; gather one gesture into one intent (one undo step).
  let moved = new Set<string>();
  let moveTimer = 0;
  listeners.cy(cy, "dragfree", "node", (event) => {
    const node = event.target;
    // An expanded local function moves as its instance (the body is drawn around it); scope groups move their nodes.
    const ids = node.isParent() && node.id().startsWith("g:")
      ? node.descendants().filter((d: { isParent: () => boolean }) => !d.isParent()).map((d: { id: () => string }) => d.id())
      : [node.id()];
    ids.filter((id: string) => !id.startsWith("f:")).forEach((id: string) => moved.add(id));
    clearTimeout(moveTimer);
    moveTimer = window.setTimeout(() => {
      const list = [...moved].filter((id) => {
        const data = ctx.store.nodes.get(id);
        return data !== undefined && (data.kind !== "group" || data.function !== null);
      });
      moved = new Set();
      if (!list.length) return;
      const positions = new Float32Array(list.length * 2);
      list.forEach((id, i) => {
        const p = cy.getElementById(id).position();
        positions[2 * i] = p.x;
        positions[2 * i + 1] = p.y;
      });
      void ctx.channel.intent("move", { ids: list }, [positions.buffer]);
    }, 0);
  });
  listeners.add(() => clearTimeout(moveTimer));

  listeners.cy(cy, "dbltap", "node.group", (event) => {
    const id = event.target.id();
    const collapsed = ctx.store.nodes.get(id)?.collapsed;
    void ctx.channel.intent(collapsed ? "expand" : "collapse", { group: id });
  });
  // A local-function instance opens in place (a double-click on one of its free terminals makes a graph I/O instead).
  listeners.cy(cy, "dbltap", "node.function", (event) => {
    const data = ctx.store.nodes.get(event.target.id());
    if (!data || data.kind !== "op") return;
    const p = event.target.position();
    if (terminalAt(data, p.x, p.y, event.position.x, event.position.y, 12 / Math.max(cy.zoom(), 0.3))) return;
    void ctx.channel.intent("expand", { group: data.id });
  });

  listeners.dom(ctx.stage, "dragover", (event: DragEvent) => {
    if (event.dataTransfer?.types.includes(OP_DRAG_MIME)) {
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    }
  });
  listeners.dom(ctx.stage, "drop", (event: DragEvent) => {
    const raw = event.dataTransfer?.getData(OP_DRAG_MIME);
    if (!raw) return;
    event.preventDefault();
    const op = JSON.parse(raw) as { name: string; domain?: string };
    const p = modelPoint(ctx, event);
    if (op.domain === ANALYSIS_DOMAIN) {
      void ctx.channel.intent("add_analysis_layer", { kind: op.name, ...analysisDrop(ctx, p) });
      return;
    }
    void ctx.channel.intent("add_node", { op_type: op.name, domain: op.domain ?? "", x: p.x, y: p.y });
  });

  // Overlay follows every frame cytoscape draws (pan, zoom, drag, style).
  listeners.cy(cy, "render", null, ctx.overlay.schedule);
  listeners.cy(cy, "viewport", null, ctx.overlay.gesture);
}

/** Where an analysis layer dropped at `p` goes: the op or graph-input node under it ("" for none) and, for a Mix,
 * the one other selected such node ("" unless exactly one). */
export function analysisDrop(ctx: CanvasContext, p: { x: number; y: number }): { node: string; other: string } {
  const usable = (id: string) => ["op", "input"].includes(ctx.store.nodes.get(id)?.kind ?? "");
  const under = ctx.cy.nodes().filter((n) => {
    const box = n.boundingBox({ includeLabels: false });
    return usable(n.id()) && n.visible() && p.x >= box.x1 && p.x <= box.x2 && p.y >= box.y1 && p.y <= box.y2;
  });
  const node = under.length ? under[under.length - 1].id() : "";
  const others = ctx.cy.nodes(":selected").filter((n) => n.id() !== node && usable(n.id()));
  return { node, other: others.length === 1 ? others[0].id() : "" };
}
