/**
 * The canvas's message table: one handler per kernel message kind (common/protocol.ts's KernelMessage), so adding
 * a message is one entry here and the compiler checks every kind has one. Overlays plug in through the one
 * `overlay` entry (overlays/base.ts routes it by name). Messages that need the graph wait for the first snapshot:
 * before it they are dropped (the kernel sends them again after the snapshot a view's hello asks for), except a
 * reply, which settles its intent, and overlay messages, which the overlays keep until they exist.
 */
import { REVEAL_EVENT, type KernelMessage, type PatchOp } from "../../common/protocol";
import type { CanvasContext } from "./context";
import { exportImage } from "./export";
import { applyGrid } from "./grid";
import { fitTo, resized, setupContext, type CanvasShell } from "./setup";
import { centreOn } from "./viewport";

type Message<K extends KernelMessage["kind"]> = Extract<KernelMessage, { kind: K }>;
type Handler<M> = (shell: CanvasShell, msg: M, buffers: DataView[]) => void | Promise<void>;
export type MessageTable = { [K in KernelMessage["kind"]]: Handler<Message<K>> };

function toFloats(buffers: DataView[] | undefined): Float32Array {
  const b = buffers?.[0];
  return b ? new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) : new Float32Array();
}

function applyPatch(ctx: CanvasContext, patch: { version: number; ops: PatchOp[] }, buffer: DataView | undefined): void {
  ctx.store.patch(patch.ops, toFloats(buffer ? [buffer] : undefined));
  ctx.overlays.refresh(); // new elements, an expanded or collapsed group: coloured, and the scale spans them
  ctx.overlay.schedule();
  ctx.root.dataset.version = String(patch.version);
}

/** A handler that needs the graph: the message is dropped before the first snapshot. */
const drawn = <M>(handle: (ctx: CanvasContext, msg: M, buffers: DataView[], shell: CanvasShell) => void | Promise<void>): Handler<M> =>
  (shell, msg, buffers) => (shell.ctx ? handle(shell.ctx, msg, buffers, shell) : undefined);

export const MESSAGES: MessageTable = {
  snapshot: (shell, msg, buffers) => {
    const { root, stage, model } = shell;
    const first = !shell.ctx;
    const ctx = shell.ctx ?? (shell.ctx = setupContext(shell, msg.graph.nodes.length + msg.graph.edges.length));
    delete root.dataset.loaded;
    ctx.store.snapshot(msg.graph, toFloats(buffers));
    if (first || msg.graph.nodes.length) fitTo(ctx);
    applyGrid(stage, ctx.cy, Boolean(model.get("show_grid")));
    ctx.overlay.schedule();
    root.dataset.ready = "1";
    root.dataset.nodes = String(msg.graph.nodes.length);
    // The kernel builds the document while this overview is drawn, and says "loaded" when edits work.
    shell.loadingBadge(msg.loading ? "Loading the model… the overview is ready; edits wait for the model." : null);
  },
  loaded: (shell) => shell.loadingBadge(null),
  load_failed: (shell, msg) => {
    shell.loadingBadge(null);
    shell.toasts.show(msg.message, "error");
  },
  patch: drawn((ctx, msg, buffers) => applyPatch(ctx, msg, buffers[0])),
  reply: (shell, msg, buffers) => {
    const ctx = shell.ctx;
    if (ctx) (msg.patches ?? []).forEach((patch, i) => applyPatch(ctx, patch, buffers[i]));
    shell.channel.reply(msg);
  },
  focus: drawn((c, msg, _buffers, shell) => {
    let eles = c.cy.collection();
    for (const id of msg.ids) eles = eles.union(c.cy.getElementById(id));
    c.cy.elements(":selected").unselect();
    eles.select();
    const center = () => {
      resized(c); // a tab just activated: the canvas had no size while hidden
      centreOn(c, eles);
    };
    if (msg.reveal) {
      // A report's name link: the JupyterLab designer tab showing this canvas activates itself (document_tab.ts
      // listens for this event); in a notebook the canvas scrolls into view. Then the nodes are centred.
      shell.root.dispatchEvent(new CustomEvent(REVEAL_EVENT, { bubbles: true }));
      shell.root.scrollIntoView({ block: "nearest" });
      requestAnimationFrame(() => requestAnimationFrame(center));
    } else {
      centreOn(c, eles);
    }
  }),
  ops: drawn((ctx, msg) => {
    ctx.ops = msg.ops;
  }),
  notice: drawn((_ctx, msg, _buffers, shell) => shell.toasts.show(msg.text, msg.level)),
  export_request: drawn(async (ctx, msg, _buffers, shell) => {
    const data = await exportImage(ctx, msg.format, msg.background, msg.grid, msg.grid_colour);
    shell.model.send({ kind: "export_result", request: msg.request, format: msg.format, data });
  }),
  overlay: (shell, msg, buffers) => shell.overlays.receive(msg, buffers),
};

/** Hand one kernel message to its handler. */
export function dispatch(shell: CanvasShell, msg: KernelMessage, buffers: DataView[]): void | Promise<void> {
  const handle = MESSAGES[msg.kind] as Handler<KernelMessage> | undefined;
  if (!handle) {
    throw new Error(`unknown canvas message "${String(msg.kind)}": the kernel's dld_jupyter and this page's bundle differ; reinstall dld_jupyter and reload the page`);
  }
  return handle(shell, msg, buffers ?? []);
}
