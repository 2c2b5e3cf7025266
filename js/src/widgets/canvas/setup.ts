/**
 * Setting up one rendered canvas (index.ts renders it, messages.ts is its message table): the shell render() makes
 * before any graph (root element, channel, toasts, overlays), and the cytoscape-bound context made with the first
 * snapshot (setupContext): cytoscape, the graph store and every interaction installed on it.
 */
import cytoscape, { Core } from "cytoscape";
import type { AnyModel } from "@anywidget/types";
import type { Channel } from "./channel";
import { CanvasContext } from "./context";
import { GraphStore } from "./graph";
import { Listeners } from "./listeners";
import { TerminalOverlay } from "./terminals";
import type { Toasts } from "./toasts";
import { stylesheet } from "./style";
import { installConnect } from "./connect";
import { installInteractions } from "./interactions";
import { installKeys } from "./keys";
import { installMenu } from "./menu";
import { installSubgraphButton } from "./subgraph_button";
import { QuickAdd } from "./quickadd";
import { applyGrid } from "./grid";
import { installHitIndex } from "./hit_index";
import { Culling } from "./cull";
import { lazyFirstLayers } from "./first_paint";
import { GestureView } from "./gesture_view";
import { installWheel } from "./wheel";
import { installReadability } from "./readability";
import type { SchemeName } from "./colors";
import type { Overlays } from "./overlays/base";
import { Theme, readTheme, watchTheme } from "../../common/theme";

export const LARGE = 1500; // elements: above this, pan/zoom move the last picture (gesture_view.ts), not redraw it

/** What render() made before the first snapshot; `ctx` comes with that snapshot (setupContext). */
export interface CanvasShell {
  model: AnyModel;
  root: HTMLElement;
  stage: HTMLElement;
  readOnly: string; // a read-only canvas's banner text ("": editable)
  channel: Channel;
  toasts: Toasts;
  overlays: Overlays; // made now: an overlay message that comes before the first snapshot waits there
  ctx: CanvasContext | null;
  /** The note shown while the kernel still builds a big model's document (null: none). */
  loadingBadge(text: string | null): void;
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

/** Canvases whose first view waits for a size (resized() fits them when they get one). */
const unfitted = new WeakSet<CanvasContext>();
const seenSize = new WeakMap<CanvasContext, [number, number]>();

/**
 * The canvas changed size (ResizeObserver in index.ts), the one viewport policy for re-layout beside fitTo (first
 * view, F) and the focus (messages.ts): a canvas laid out with no size (a background tab restored after a reload,
 * clipped at the left) is fitted when it first shows; otherwise the centre across and the top stay where they were,
 * so a report split beside the designer, the dock opening or Simple Interface left never push the graph out of
 * sight (cytoscape keeps the top-left corner, so a narrower canvas hid the graph behind the dock).
 */
export function resized(ctx: CanvasContext): void {
  const cy = ctx.cy;
  // The size this policy last saw: cytoscape resizes itself on a window resize (keeping the top-left), and when
  // that came first its own size already read as the new one and the graph stayed behind the split.
  const [oldW, oldH] = seenSize.get(ctx) ?? [cy.width(), cy.height()];
  const [zoom, pan] = [cy.zoom(), cy.pan()];
  cy.resize();
  const [w, h] = [cy.width(), cy.height()];
  seenSize.set(ctx, [w, h]);
  if (w < 2 || h < 2 || (w === oldW && h === oldH)) return;
  if (unfitted.has(ctx) || oldW < 2 || oldH < 2) {
    fitTo(ctx);
    return;
  }
  const centre = (oldW / 2 - pan.x) / zoom; // across, the centre stays; down, the top (a tall graph reads from it)
  cy.pan({ x: w / 2 - centre * zoom, y: pan.y });
}

/** The zoom of a first view that is not fitted: glyphs 32-42 px tall, their 12 px labels drawn at 7.8 px. */
const READABLE_ZOOM = 0.65;

/**
 * First view of the kernel's positions (elements may still be on their way into cytoscape): the whole graph when
 * it fits at a readable zoom; otherwise the readable zoom, starting at the top where the graph inputs are (as a
 * reader starts a tall network), centred where most of what the first screen shows lies. `F` fits everything.
 */
export function fitTo(ctx: CanvasContext): void {
  const box = ctx.store.extent();
  if (!box) return;
  if (ctx.cy.width() < 2 || ctx.cy.height() < 2) {
    unfitted.add(ctx); // laid out while hidden (a background tab after a reload): fitted when first shown
    return;
  }
  unfitted.delete(ctx);
  seenSize.set(ctx, [ctx.cy.width(), ctx.cy.height()]);
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
  const cx = firstScreen(ctx, box.y1 + h / zoom) ?? (box.x1 + box.x2) / 2;
  const left = zoom * width <= w ? (box.x1 + box.x2) / 2 : cx;
  ctx.cy.viewport({ zoom, pan: { x: ctx.cy.width() / 2 - zoom * left, y: pad - zoom * box.y1 } });
}

/**
 * Where the first screen's glyphs lie across: the median x of the nodes whose top lies above `bottom`, weighted by
 * their area. The middle of their extent was off to one side when a transformer's mask chain ran far beside its
 * blocks (GPT-2 with a dynamic attention mask: its blocks were cut at the left edge).
 */
function firstScreen(ctx: CanvasContext, bottom: number): number | null {
  const seen: { x: number; weight: number }[] = [];
  let total = 0;
  for (const [id, p] of ctx.store.pos) {
    const n = ctx.store.nodes.get(id);
    if (!n || (n.kind === "group" && !n.collapsed) || p.y - n.height / 2 > bottom) continue;
    seen.push({ x: p.x, weight: n.width * n.height });
    total += n.width * n.height;
  }
  seen.sort((a, b) => a.x - b.x);
  let sum = 0;
  for (const item of seen) {
    sum += item.weight;
    if (sum >= total / 2) return item.x;
  }
  return null;
}

/** The cytoscape-bound context of the first snapshot (`count` elements); its listeners go with `ctx.listeners`. */
export function setupContext(shell: CanvasShell, count: number): CanvasContext {
  const { model, root, stage, channel, toasts, readOnly } = shell;
  const theme = readTheme(root);
  const cy = makeCy(stage, count, theme);
  lazyFirstLayers(cy); // the first picture without building the layered textures first (first_paint.ts)
  // An engine graph's links carry shape and format ("32×64×112×112 FP16 HWC8"): level, not along its short
  // vertical links, where they were cut off by the glyphs.
  const levelLabels = () => {
    if (readOnly) cy.style().selector("edge").style({ "text-rotation": "none" }).update();
  };
  levelLabels();
  const store = new GraphStore(cy, () => {
    root.dataset.loaded = "1"; // every element created (big graphs are created in chunks after the first paint)
    c.overlays.refresh();
    c.overlay.schedule();
  });
  store.scheme = (model.get("color_scheme") as SchemeName) || "default";
  store.theme = theme;
  const parts = new Listeners((error, where) => channel.jsError(error, where));
  const c: CanvasContext = {
    model, cy, root, stage, store, channel, toasts, listeners: parts,
    overlay: new TerminalOverlay(cy, store, root),
    overlays: shell.overlays,
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
  // cytoscape keeps where its container sits on the page and drops it only on a scroll, a resize or a transition:
  // a banner shown above the canvas (read-only while analysing) moved it down and every click and hover landed
  // that much lower (a right-click on a glyph opened the menu of the link below it). Entering or pressing reads
  // the position again (one getBoundingClientRect).
  const replaced = () => (cy as unknown as { renderer(): { invalidateContainerClientCoordsCache(): void } }).renderer().invalidateContainerClientCoordsCache();
  parts.dom(stage, "pointerenter", replaced);
  parts.dom(stage, "pointerdown", replaced, { capture: true });
  if (readOnly) {
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
  // A big graph's redraws draw what is around the view only (cull.ts); not while it is still being created.
  const culling = new Culling(cy, hits.index, () => !store.loading && store.nodes.size + store.edges.size > LARGE);
  parts.add(() => culling.restore());
  (stage as unknown as { _culling: Culling })._culling = culling; // for tests
  // A big graph's gestures move the last picture (a CSS transform) instead of cytoscape's texture (gesture_view.ts).
  const gestures = new GestureView(cy);
  parts.add(() => gestures.restore());
  (stage as unknown as { _gestures: GestureView })._gestures = gestures; // for tests
  c.overlay.hits = hits.index;
  shell.overlays.attach(c); // the overlays draw over it; messages that came before are handed to them now
  return c;
}
