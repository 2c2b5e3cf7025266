/**
 * Graph canvas anywidget (Python half: dld_jupyter/widgets/canvas/canvas.py).
 *
 * State Python knows (synced traits): selection, color_scheme, show_grid, height, title.
 * State Python never sees: viewport, hover, rubber band, open menus.
 * The kernel owns the graph: this view asks for a snapshot on render, applies patches, sends intents.
 */
import cytoscape, { Core } from "cytoscape";
import type { AnyModel, RenderProps } from "@anywidget/types";
import { REVEAL_EVENT, type KernelMessage, type PatchOp } from "../../common/protocol";
import "./canvas.css";
import { Channel } from "./channel";
import { CanvasContext } from "./context";
import { GraphStore } from "./graph";
import { Listeners } from "./listeners";
import { TerminalOverlay } from "./terminals";
import { Toasts } from "./toasts";
import { stylesheet } from "./style";
import { installConnect } from "./connect";
import { installInteractions } from "./interactions";
import { installKeys } from "./keys";
import { installMenu } from "./menu";
import { installSubgraphButton } from "./subgraph_button";
import { installPrecisionBadges } from "./trt_badge";
import { openTrtDialog } from "./trt_open";
import { QuickAdd } from "./quickadd";
import { applyGrid } from "./grid";
import { exportImage } from "./export";
import { installHitIndex } from "./hit_index";
import { installWheel } from "./wheel";
import { installReadability } from "./readability";
import type { SchemeName } from "./colors";
import { CanvasHeat } from "./heat";
import { HeatMessage, decodeHeat } from "./heat_scale";
import { Theme, readTheme, watchTheme } from "../../common/theme";

const LARGE = 1500; // elements: above this, draw a texture while panning/zooming and hide links meanwhile

function toFloats(buffers: DataView[] | undefined): Float32Array {
  const b = buffers?.[0];
  return b ? new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) : new Float32Array();
}

function makeCy(stage: HTMLElement, count: number, theme: Theme): Core {
  const large = count > LARGE;
  return cytoscape({
    container: stage,
    style: stylesheet(large, theme),
    layout: { name: "preset" }, // positions come from the kernel
    boxSelectionEnabled: true,
    selectionType: "additive",
    minZoom: 0.01,
    maxZoom: 4,
    textureOnViewport: large,
    hideEdgesOnViewport: large,
    hideLabelsOnViewport: large,
    motionBlur: false,
    pixelRatio: large ? 1 : "auto",
  });
}

/** The zoom of a first view that is not fitted: glyphs 32-42 px tall, their 12 px labels drawn at 7.8 px. */
const READABLE_ZOOM = 0.65;

/**
 * First view of the kernel's positions (elements may still be on their way into cytoscape): the whole graph when
 * it fits at a readable zoom; otherwise the readable zoom, starting at the top where the graph inputs are (as a
 * reader starts a tall network), centred on what the first screen shows. `F` fits everything.
 */
function fitTo(ctx: CanvasContext): void {
  const box = ctx.store.extent();
  if (!box) return;
  const pad = 30;
  const w = Math.max(ctx.cy.width() - 2 * pad, 10);
  const h = Math.max(ctx.cy.height() - 2 * pad, 10);
  const width = Math.max(box.x2 - box.x1, 1);
  const height = Math.max(box.y2 - box.y1, 1);
  const fit = Math.min(2, Math.max(0.01, Math.min(w / width, h / height)));
  if (fit >= READABLE_ZOOM) {
    ctx.cy.viewport({
      zoom: fit,
      pan: { x: ctx.cy.width() / 2 - (fit * (box.x1 + box.x2)) / 2, y: ctx.cy.height() / 2 - (fit * (box.y1 + box.y2)) / 2 },
    });
    return;
  }
  const zoom = READABLE_ZOOM;
  const band = firstScreen(ctx, box.y1 + h / zoom);
  const cx = band ? (band.x1 + band.x2) / 2 : (box.x1 + box.x2) / 2;
  const left = zoom * width <= w ? (box.x1 + box.x2) / 2 : cx;
  ctx.cy.viewport({ zoom, pan: { x: ctx.cy.width() / 2 - zoom * left, y: pad - zoom * box.y1 } });
}

/** Horizontal extent of the nodes whose top lies above `bottom` (what the first screen shows). */
function firstScreen(ctx: CanvasContext, bottom: number): { x1: number; x2: number } | null {
  let x1 = Infinity;
  let x2 = -Infinity;
  for (const [id, p] of ctx.store.pos) {
    const n = ctx.store.nodes.get(id);
    if (!n || (n.kind === "group" && !n.collapsed) || p.y - n.height / 2 > bottom) continue;
    x1 = Math.min(x1, p.x - n.width / 2);
    x2 = Math.max(x2, p.x + n.width / 2);
  }
  return isFinite(x1) ? { x1, x2 } : null;
}

function toDoubles(b: DataView | undefined): Float64Array {
  return b ? new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) : new Float64Array();
}

function applyPatch(ctx: CanvasContext, patch: { version: number; ops: PatchOp[] }, buffer: DataView | undefined): void {
  ctx.store.patch(patch.ops, toFloats(buffer ? [buffer] : undefined));
  ctx.heat?.refresh(); // new elements, an expanded or collapsed group: coloured, and the scale spans them
  ctx.overlay.schedule();
  ctx.root.dataset.version = String(patch.version);
}

export function render({ model, el }: RenderProps): () => void {
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
  const readOnly = String(model.get("read_only") ?? "");
  if (readOnly) {
    root.dataset.readOnly = "1";
    const banner = document.createElement("div");
    banner.className = "dld-readonly";
    banner.textContent = readOnly;
    root.appendChild(banner);
  }
  el.appendChild(root);
  const toasts = new Toasts(root);
  const channel = new Channel(model, toasts, (msg, buffers) => {
    onMessage(msg, buffers).catch((error) => channel.jsError(error, `message ${msg.kind}`));
  });
  const listeners = new Listeners((error, where) => channel.jsError(error, where));
  let ctx: CanvasContext | null = null;
  let parts: Listeners | null = null; // listeners of the cytoscape-bound parts, made with the first snapshot

  const setup = (count: number): CanvasContext => {
    const theme = readTheme(root);
    const cy = makeCy(stage, count, theme);
    // An engine graph's links carry shape and format ("32×64×112×112 FP16 HWC8"): level, not along its short
    // vertical links, where they were cut off by the glyphs.
    const levelLabels = () => {
      if (readOnly) cy.style().selector("edge").style({ "text-rotation": "none" }).update();
    };
    levelLabels();
    const store = new GraphStore(cy, () => {
      root.dataset.loaded = "1"; // every element created (big graphs are created in chunks after the first paint)
      c.heat?.refresh();
      c.overlay.schedule();
    });
    store.scheme = (model.get("color_scheme") as SchemeName) || "default";
    store.theme = theme;
    parts = new Listeners((error, where) => channel.jsError(error, where));
    const c: CanvasContext = {
      model, cy, root, stage, store, channel, toasts, listeners: parts,
      overlay: new TerminalOverlay(cy, store, root),
      pointer: { x: 0, y: 0 },
      ops: [],
    };
    const quickAdd = new QuickAdd(c);
    installInteractions(c);
    installConnect(c);
    installKeys(c, quickAdd);
    installMenu(c);
    installSubgraphButton(c);
    installWheel(cy, root, stage, parts);
    installReadability(cy, parts);
    if (!readOnly) installPrecisionBadges(c); // its quick menu changes a layer's precision
    else {
      // Hovering a layer names it in full and shows its whole record beside the canvas (the kernel's panel) until
      // the pointer leaves it; the selected layer's record comes back then.
      parts.cy(cy, "mouseover", "node", (event) => {
        const n = c.store.nodes.get(event.target.id());
        stage.title = n ? [n.name, n.kind === "op" ? `${n.op_type} · ${n.subtitle ?? ""}` : ""].filter(Boolean).join("\n") : "";
        if (n) model.send({ kind: "hover", id: n.id });
      });
      parts.cy(cy, "mouseout", "node", () => {
        stage.title = "";
        model.send({ kind: "hover", id: null });
      });
    }
    parts.cy(cy, "viewport", null, () => applyGrid(stage, cy, Boolean(model.get("show_grid"))));
    parts.add(() => quickAdd.close());
    // JupyterLab theme switch: cytoscape holds colours, not CSS variables, so restyle with the new ones.
    parts.add(watchTheme(root, (next) => {
      store.theme = next;
      cy.style(stylesheet(count > LARGE, next));
      levelLabels();
      store.restyle(store.scheme);
      c.overlay.schedule();
      root.dataset.theme = next.dark ? "dark" : "light";
    }));
    root.dataset.theme = theme.dark ? "dark" : "light";
    (stage as unknown as { _dld: unknown })._dld = c; // for tests and the benchmark
    parts.add(() => store.dispose());
    const hits = installHitIndex(cy);
    store.onChange = hits.index.invalidate;
    parts.add(hits.restore);
    c.overlay.hits = hits.index;
    c.heat = new CanvasHeat(c);
    return c;
  };

  /** The note shown while the kernel still builds a big model's document (root.dataset.document says it too). */
  let badge: HTMLDivElement | null = null;
  const loadingBadge = (text: string | null): void => {
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

  const onMessage = async (msg: KernelMessage, buffers: DataView[]) => {
    if (msg.kind === "snapshot") {
      const first = !ctx;
      if (!ctx) ctx = setup(msg.graph.nodes.length + msg.graph.edges.length);
      delete root.dataset.loaded;
      ctx.store.snapshot(msg.graph, toFloats(buffers));
      if (first || msg.graph.nodes.length) fitTo(ctx);
      applyGrid(stage, ctx.cy, Boolean(model.get("show_grid")));
      ctx.overlay.schedule();
      root.dataset.ready = "1";
      root.dataset.nodes = String(msg.graph.nodes.length);
      loadingBadge(msg.loading ? "Loading the model… the overview is ready; edits wait for the model." : null);
      if (first && msg.loading) {
        // The kernel builds the document (seconds of CPU) once this overview is on screen.
        requestAnimationFrame(() => requestAnimationFrame(() => model.send({ kind: "painted", view: channel.view })));
      }
    } else if (msg.kind === "loaded") {
      loadingBadge(null);
    } else if (msg.kind === "load_failed") {
      loadingBadge(null);
      toasts.show(msg.message, "error");
    } else if (!ctx) {
      if (msg.kind === "reply") channel.reply(msg);
      return;
    } else if (msg.kind === "patch") {
      applyPatch(ctx, msg, buffers?.[0]);
    } else if (msg.kind === "reply") {
      const c = ctx;
      (msg.patches ?? []).forEach((patch, i) => applyPatch(c, patch, buffers?.[i]));
      channel.reply(msg);
    } else if (msg.kind === "focus") {
      const c = ctx;
      let eles = c.cy.collection();
      for (const id of msg.ids) eles = eles.union(c.cy.getElementById(id));
      ctx.cy.elements(":selected").unselect();
      eles.select();
      const center = () => {
        c.cy.resize(); // a tab just activated: the canvas had no size while hidden
        if (eles.nonempty()) c.cy.animate({ center: { eles }, zoom: Math.max(c.cy.zoom(), 0.8), duration: 150 });
      };
      if (msg.reveal) {
        // A report's name link: the JupyterLab designer tab showing this canvas activates itself (document_tab.ts
        // listens for this event); in a notebook the canvas scrolls into view. Then the nodes are centred.
        root.dispatchEvent(new CustomEvent(REVEAL_EVENT, { bubbles: true }));
        root.scrollIntoView({ block: "nearest" });
        requestAnimationFrame(() => requestAnimationFrame(center));
      } else if (eles.nonempty()) {
        ctx.cy.animate({ center: { eles }, zoom: Math.max(ctx.cy.zoom(), 0.8), duration: 150 });
      }
    } else if (msg.kind === "heat") {
      ctx.heat?.show(decodeHeat(msg as HeatMessage, toDoubles(buffers?.[0])));
    } else if (msg.kind === "heat_clear") {
      ctx.heat?.clear();
    } else if (msg.kind === "ops") {
      ctx.ops = msg.ops;
    } else if (msg.kind === "trt_dialog") {
      openTrtDialog(ctx, msg.dialog, msg.nodes);
    } else if (msg.kind === "notice") {
      toasts.show(msg.text, msg.level);
    } else if (msg.kind === "export_request") {
      const data = await exportImage(ctx, msg.format, msg.background, msg.grid);
      model.send({ kind: "export_result", request: msg.request, format: msg.format, data });
    }
  };

  listeners.model(model as AnyModel, "msg:custom", (msg: KernelMessage, buffers: DataView[]) => {
    channel.inbox.receive(msg, buffers);
  });
  listeners.model(model as AnyModel, "change:channel_token", () => void channel.connect());
  listeners.model(model as AnyModel, "change:color_scheme", () => {
    ctx?.store.restyle((model.get("color_scheme") as SchemeName) || "default");
    ctx?.overlay.schedule();
  });
  listeners.model(model as AnyModel, "change:show_grid", () => applyGrid(stage, ctx?.cy ?? null, Boolean(model.get("show_grid"))));
  listeners.model(model as AnyModel, "change:height", () => {
    root.style.height = String(model.get("height") || "600px");
    ctx?.cy.resize();
  });
  const resize = new ResizeObserver(() => {
    ctx?.cy.resize();
    ctx?.overlay.schedule();
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
    parts?.dispose();
    listeners.dispose();
    if (ctx) {
      ctx.overlay.dispose();
      ctx.cy.destroy();
    }
    toasts.dispose();
    root.remove();
  };
}

export default { render };
