/**
 * Graph canvas anywidget (Python half: dld_jupyter/widgets/canvas/canvas.py).
 *
 * State Python knows (synced traits): selection, color_scheme, show_grid, height, title.
 * State Python never sees: viewport, hover, rubber band, open menus.
 * The kernel owns the graph: this view asks for a snapshot on render, applies patches, sends intents.
 * render() makes the shell (root element, channel, overlays) and wires the model's events; the cytoscape-bound
 * context comes with the first snapshot (setup.ts) and every kernel message goes through one table (messages.ts).
 */
import type { AnyModel, RenderProps } from "@anywidget/types";
import type { KernelMessage } from "../../common/protocol";
import "./canvas.css";
import { Channel } from "./channel";
import { Listeners } from "./listeners";
import { Toasts } from "./toasts";
import { applyGrid } from "./grid";
import type { SchemeName } from "./colors";
import { dispatch } from "./messages";
import { canvasOverlays } from "./overlays";
import { resized, type CanvasShell } from "./setup";

/** The widget's element: focusable, JupyterLab's shortcuts and menu kept out, a read-only canvas's banner. */
function makeRoot(model: AnyModel, readOnly: string): { root: HTMLElement; stage: HTMLElement } {
  const root = document.createElement("div");
  root.className = "dld-canvas";
  root.tabIndex = 0;
  // JupyterLab's shortcuts (Ctrl+S saves the notebook, Delete cuts cells...) stay out while the canvas has focus.
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  root.setAttribute("data-jp-suppress-context-menu", "true"); // our own menu, not the notebook's
  root.style.height = String(model.get("height") || "600px");
  const stage = document.createElement("div");
  stage.className = "dld-stage";
  root.appendChild(stage);
  // A read-only canvas (a TensorRT engine graph, dld_jupyter/widgets/engine): a banner says so; the kernel refuses
  // every edit gesture with a toast that says why.
  if (readOnly) {
    root.dataset.readOnly = "1";
    const banner = document.createElement("div");
    banner.className = "dld-readonly";
    banner.textContent = readOnly;
    root.appendChild(banner);
  }
  return { root, stage };
}

/** The note shown while the kernel still builds a big model's document (root.dataset.document says it too). */
function loadingBadge(root: HTMLElement): (text: string | null) => void {
  let badge: HTMLDivElement | null = null;
  return (text) => {
    root.dataset.document = text ? "loading" : "1";
    if (text && !badge) {
      badge = document.createElement("div");
      badge.className = "dld-loading";
      root.appendChild(badge);
    }
    if (badge) {
      if (text) badge.textContent = text;
      else {
        badge.remove();
        badge = null;
      }
    }
  };
}

export function render({ model, el }: RenderProps): () => void {
  const readOnly = String(model.get("read_only") ?? "");
  const { root, stage } = makeRoot(model, readOnly);
  el.appendChild(root);
  const toasts = new Toasts(root);
  const channel = new Channel(model, toasts, (msg, buffers) => {
    const failed = (error: unknown) => channel.jsError(error, `message ${msg.kind}`);
    try {
      dispatch(shell, msg, buffers)?.catch(failed); // applied now, in the inbox's order; an export answers later
    } catch (error) {
      failed(error);
    }
  });
  const shell: CanvasShell = {
    model, root, stage, readOnly, channel, toasts, overlays: canvasOverlays(), ctx: null, loadingBadge: loadingBadge(root),
  };
  const listeners = new Listeners((error, where) => channel.jsError(error, where));
  listeners.model(model as AnyModel, "msg:custom", (msg: KernelMessage, buffers: DataView[]) => {
    channel.inbox.receive(msg, buffers);
  });
  listeners.model(model as AnyModel, "change:channel_token", () => void channel.connect());
  listeners.model(model as AnyModel, "change:color_scheme", () => {
    shell.ctx?.store.restyle((model.get("color_scheme") as SchemeName) || "default");
    shell.ctx?.overlay.schedule();
  });
  listeners.model(model as AnyModel, "change:show_grid", () => applyGrid(stage, shell.ctx?.cy ?? null, Boolean(model.get("show_grid"))));
  listeners.model(model as AnyModel, "change:height", () => {
    root.style.height = String(model.get("height") || "600px");
    shell.ctx?.cy.resize();
  });
  const resize = new ResizeObserver(() => {
    if (shell.ctx) resized(shell.ctx); // the viewport policy of a size change (setup.ts)
    shell.ctx?.overlay.schedule();
  });
  resize.observe(root);
  listeners.add(() => resize.disconnect());
  listeners.dom(window, "error", (event: ErrorEvent) => {
    // Only errors thrown from this bundle: the notebook page has other code.
    if (event.filename && event.filename.includes("canvas")) channel.jsError(event.error ?? event.message, "window");
  });

  channel.hello();
  void channel.connect();
  return () => {
    channel.dispose();
    shell.ctx?.listeners.dispose();
    listeners.dispose();
    if (shell.ctx) {
      shell.ctx.overlay.dispose();
      shell.ctx.cy.destroy();
    }
    toasts.dispose();
    root.remove();
  };
}

export default { render };
