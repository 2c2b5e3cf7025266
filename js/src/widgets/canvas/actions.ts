/** Canvas actions shared by the keyboard, the context menu and the toolbar: each becomes one kernel intent. */
import type { CanvasContext } from "./context";
import { selectedEdgeIds, selectedNodeIds } from "./context";
import { showDoc } from "./docpanel";
import { centreOn } from "./viewport";

export const actions = {
  delete(ctx: CanvasContext): void {
    const nodes = selectedNodeIds(ctx).filter((id) => ctx.store.nodes.get(id)?.kind !== "group");
    const edges = selectedEdgeIds(ctx).filter((id) => ctx.store.edges.has(id));
    if (nodes.length || edges.length) void ctx.channel.intent("delete", { nodes, edges });
  },
  copy(ctx: CanvasContext): void {
    const nodes = selectedNodeIds(ctx);
    if (nodes.length) void ctx.channel.intent("copy", { nodes });
  },
  cut(ctx: CanvasContext): void {
    const nodes = selectedNodeIds(ctx);
    if (nodes.length) void ctx.channel.intent("cut", { nodes });
  },
  paste(ctx: CanvasContext): void {
    void ctx.channel.intent("paste", { x: ctx.pointer.x, y: ctx.pointer.y });
  },
  undo: (ctx: CanvasContext) => void ctx.channel.intent("undo"),
  redo: (ctx: CanvasContext) => void ctx.channel.intent("redo"),
  save: (ctx: CanvasContext) => void ctx.channel.intent("save"),
  arrange: (ctx: CanvasContext) => void ctx.channel.intent("arrange"),
  fit(ctx: CanvasContext): void {
    ctx.cy.fit(undefined, 30);
  },
  async extract(ctx: CanvasContext): Promise<void> {
    const nodes = selectedNodeIds(ctx);
    if (!nodes.length) {
      ctx.toasts.show("Select the nodes to extract first.", "warning");
      return;
    }
    const reply = await ctx.channel.intent("extract", { nodes });
    if (reply.ok && reply.data) ctx.toasts.show(`Extracted to ${String(reply.data.path)}`, "info", 6000);
  },
  async documentation(ctx: CanvasContext, nodeId: string): Promise<void> {
    const reply = await ctx.channel.intent("doc", { node: nodeId });
    if (!reply.ok || !reply.data) return;
    const { title, doc, name, domain, since_version: version } = reply.data;
    const operator =
      typeof name === "string" && typeof domain === "string" ? { name, domain, version: Number(version) || undefined } : undefined;
    showDoc(ctx, String(title), String(doc), operator);
  },
  /** Go to one end of a link: select that node and center it. */
  goto(ctx: CanvasContext, edgeId: string, end: "source" | "target"): void {
    const edge = ctx.cy.getElementById(edgeId);
    if (edge.empty()) return;
    const node = end === "source" ? edge.source() : edge.target();
    ctx.cy.elements(":selected").unselect();
    node.select();
    centreOn(ctx, node, 200);
  },
};
