/**
 * The Channel Inspector anywidget (Python half: dld_jupyter/widgets/analysis/channel_inspector.py).
 *
 * Synced state (Python knows it): `title`, `message`, `meta` (layout, encoding, stats, defaults), `data` (the values
 * as one binary buffer), `shift` and `scale` (the fields and Reset write them back). Page-only state: which tiles are
 * painted, the pointer's readout, the scroll. Each tile is a canvas of H×W pixels enlarged by CSS; an
 * IntersectionObserver paints a tile when it comes into view and a shift/scale change repaints only the tiles in
 * view (the others when they scroll in), so a 1×512×28×28 map paints its first screen at once. When the first
 * screen is on the page, the root gets `data-paint-ms` (from the data's arrival) and a `dld-channel-painted` event.
 */
import type { RenderProps } from "@anywidget/types";
import "./channel_inspector.css";
import { element } from "./dom";
import {
  Encoding, Layout, Values, formatValue, lookupTable, paintInto, readout, tileBox, valueAt, valuesOf,
} from "./channel_paint";

interface InspectorModel {
  title: string;
  message: string;
  meta: Meta | Record<string, never>;
  data: DataView | null;
  shift: number;
  scale: number;
  height: string;
}

interface Meta {
  shape: number[];
  dtype: string;
  layout: Layout;
  encoding: Encoding;
  shown: number;
  tiles: number;
  stats: { count: number; minimum: number | null; maximum: number | null; mean: number | null; std: number | null; nan: number; inf: number };
  default_shift: number;
  default_scale: number;
}

const STRIP_WIDTH = 8192; // a longer strip wraps onto more rows of one canvas

function numberField(label: string): { box: HTMLLabelElement; input: HTMLInputElement } {
  const box = element("label", "dld-ci-field", label + " ");
  const input = element("input", "dld-ci-input");
  input.type = "number";
  input.step = "any";
  box.appendChild(input);
  return { box, input };
}

export function statsLine(meta: Meta): string {
  const s = meta.stats;
  const f = (v: number | null) => (v === null ? "—" : formatValue(v));
  const shape = meta.shape.length ? meta.shape.join("×") : "scalar";
  const odd = s.nan || s.inf ? ` · NaN ${s.nan}, Inf ${s.inf}` : "";
  const part = meta.shown < meta.tiles ? ` · showing the first ${meta.shown} of ${meta.tiles} tiles` : "";
  return `${shape} ${meta.dtype} · min ${f(s.minimum)} · max ${f(s.maximum)} · mean ${f(s.mean)} · std ${f(s.std)}${odd}${part}`;
}

function render({ model, el }: RenderProps<InspectorModel>): () => void {
  const root = element("div", "dld-ci");
  const bar = element("div", "dld-ci-bar");
  const title = element("span", "dld-ci-title");
  const shift = numberField("Shift");
  const scale = numberField("Scale");
  const reset = element("button", "dld-ci-reset", "Reset");
  reset.title = "Reset Parameters: the default shift and scale";
  const value = element("span", "dld-ci-readout");
  bar.append(title, shift.box, scale.box, reset, value);
  const note = element("div", "dld-ci-note");
  const grid = element("div", "dld-ci-grid");
  root.append(bar, note, grid);
  el.appendChild(root);

  let meta: Meta | null = null;
  let values: Values = new Float32Array(0);
  let canvases: HTMLCanvasElement[] = [];
  let painted: number[] = []; // the generation each tile was painted at
  let generation = 0;
  let table: Uint32Array | undefined;
  let observer: IntersectionObserver | null = null;
  const visible = new Set<number>();
  let arrived = 0;
  let reported = false;
  let rebuildQueued = false;
  let closed = false;

  const geometry = (layout: Layout): { cw: number; ch: number; size: number } => {
    if (layout.kind === "strips") {
      const cw = Math.min(layout.w, STRIP_WIDTH);
      return { cw, ch: Math.ceil(layout.w / cw), size: layout.w };
    }
    return { cw: layout.w, ch: layout.h, size: layout.w * layout.h };
  };

  const paint = (i: number): void => {
    if (!meta || painted[i] === generation) return;
    const { cw, ch, size } = geometry(meta.layout);
    const ctx = canvases[i].getContext("2d");
    if (!ctx) return;
    const image = ctx.createImageData(cw, ch);
    paintInto(image.data, values, meta.encoding, i * size, size, model.get("shift"), model.get("scale"), table);
    ctx.putImageData(image, 0, 0);
    painted[i] = generation;
  };

  const report = (): void => {
    if (reported) return;
    reported = true;
    requestAnimationFrame(() => {
      const ms = performance.now() - arrived;
      root.dataset.paintMs = ms.toFixed(1);
      root.dataset.paintedTiles = String(painted.filter((g) => g === generation).length);
      root.dispatchEvent(new CustomEvent("dld-channel-painted", { bubbles: true, detail: { ms } }));
    });
  };

  const recolour = (): void => {
    generation++;
    table = meta && meta.encoding.dtype === "uint8" ? lookupTable(meta.encoding, model.get("shift"), model.get("scale")) : undefined;
    visible.forEach(paint);
    root.dataset.generation = String(generation);
  };

  const onIntersect = (entries: IntersectionObserverEntry[]): void => {
    for (const entry of entries) {
      const i = Number((entry.target as HTMLElement).dataset.tile);
      if (entry.isIntersecting) {
        visible.add(i);
        paint(i);
      } else visible.delete(i);
    }
    report();
  };

  const rebuild = (): void => {
    rebuildQueued = false;
    if (closed) return;
    observer?.disconnect();
    visible.clear();
    grid.replaceChildren();
    canvases = [];
    painted = [];
    reported = false;
    arrived = performance.now();
    const given = model.get("meta");
    meta = given && "layout" in given ? (given as Meta) : null;
    title.textContent = model.get("title");
    if (!meta) {
      note.textContent = model.get("message");
      return;
    }
    note.textContent = statsLine(meta);
    values = valuesOf(model.get("data"), meta.encoding);
    const layout = meta.layout;
    const { cw, ch } = geometry(layout);
    const box = tileBox(layout, grid.clientWidth || 600);
    grid.classList.toggle("dld-ci-strips", layout.kind === "strips");
    const fragment = document.createDocumentFragment();
    for (let i = 0; i < meta.shown; i++) {
      const canvas = document.createElement("canvas");
      canvas.className = "dld-ci-tile";
      canvas.width = cw;
      canvas.height = ch;
      canvas.style.width = layout.kind === "strips" ? "100%" : `${box.width}px`;
      canvas.style.height = `${box.height * (layout.kind === "strips" ? ch : 1)}px`;
      canvas.dataset.tile = String(i);
      fragment.appendChild(canvas);
      canvases.push(canvas);
      painted.push(-1);
    }
    grid.appendChild(fragment);
    recolour();
    if (typeof IntersectionObserver === "undefined") {
      canvases.slice(0, 64).forEach((_, i) => visible.add(i));
      visible.forEach(paint);
      report();
      return;
    }
    observer = new IntersectionObserver(onIntersect, { root: grid, rootMargin: "256px" });
    canvases.forEach((c) => observer?.observe(c));
  };

  const queueRebuild = (): void => {
    if (rebuildQueued) return;
    rebuildQueued = true;
    queueMicrotask(rebuild);
  };

  const onPointer = (event: MouseEvent): void => {
    const target = event.target as HTMLElement;
    if (!meta || !target.dataset || target.dataset.tile === undefined) return;
    const i = Number(target.dataset.tile);
    const rect = target.getBoundingClientRect();
    const { cw, ch, size } = geometry(meta.layout);
    const x = Math.min(cw - 1, Math.floor(((event.clientX - rect.left) / Math.max(1, rect.width)) * cw));
    const y = Math.min(ch - 1, Math.floor(((event.clientY - rect.top) / Math.max(1, rect.height)) * ch));
    const offset = meta.layout.kind === "strips" ? y * cw + x : y * meta.layout.w + x;
    if (x < 0 || y < 0 || offset >= size) return;
    const v = valueAt(values, meta.encoding, i * size + offset);
    const strip = meta.layout.kind === "strips";
    value.textContent = readout(meta.layout, i, strip ? 0 : y, strip ? offset : x, v, meta.encoding.dtype === "uint8");
  };
  const onLeave = (): void => {
    value.textContent = "";
  };

  const showFields = (): void => {
    shift.input.value = String(Number(model.get("shift").toPrecision(6)));
    scale.input.value = String(Number(model.get("scale").toPrecision(6)));
  };
  const onField = (name: "shift" | "scale", input: HTMLInputElement) => (): void => {
    const v = Number.parseFloat(input.value);
    if (!Number.isFinite(v)) return showFields();
    model.set(name, v);
    model.save_changes();
    showFields();
    recolour();
  };
  const onShift = onField("shift", shift.input);
  const onScale = onField("scale", scale.input);
  const onReset = (): void => {
    if (!meta) return;
    model.set("shift", meta.default_shift);
    model.set("scale", meta.default_scale);
    model.save_changes();
    showFields();
    recolour();
  };
  const onMapping = (): void => {
    showFields();
    recolour();
  };
  const onHeight = (): void => {
    grid.style.height = model.get("height");
  };
  const onTitle = (): void => {
    title.textContent = model.get("title");
    if (!meta) note.textContent = model.get("message");
  };

  const domEvents: [EventTarget, string, EventListener][] = [
    [shift.input, "change", onShift], [scale.input, "change", onScale], [reset, "click", onReset],
    [grid, "mousemove", onPointer as EventListener], [grid, "mouseleave", onLeave],
  ];
  const modelEvents: [string, () => void][] = [
    ["change:data", queueRebuild], ["change:meta", queueRebuild], ["change:shift", onMapping],
    ["change:scale", onMapping], ["change:title", onTitle], ["change:message", onTitle], ["change:height", onHeight],
  ];
  domEvents.forEach(([target, type, fn]) => target.addEventListener(type, fn));
  modelEvents.forEach(([name, fn]) => model.on(name, fn));
  onHeight();
  showFields();
  rebuild();
  return () => {
    closed = true;
    observer?.disconnect();
    domEvents.forEach(([target, type, fn]) => target.removeEventListener(type, fn));
    modelEvents.forEach(([name, fn]) => model.off(name, fn));
    root.remove();
  };
}

export default { render };
