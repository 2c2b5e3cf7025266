/**
 * The Channel Inspector's grid of tiles: one canvas of H×W pixels per tile, enlarged by CSS, painted only when in
 * view. An IntersectionObserver paints a tile when it scrolls in; a shift/scale change (a new generation) repaints
 * the tiles in view and leaves the others to their scroll, so a 1×512×28×28 map paints its first screen at once.
 * When the first screen is on the page, the inspector's root gets `data-paint-ms` (from the data's arrival) and a
 * `dld-channel-painted` event; `data-generation` counts the recolourings. The pop-out (`detail`) shows large tiles,
 * each in a card with its histogram (cards.ts), painted with its tile.
 */
import { makeCard, paintCard } from "./cards";
import { binReadout, channelName, HistogramSet } from "./histograms";
import {
  colourOf, Layout, Values, lookupTable, paintInto, readout, tileBox, valueAt,
} from "./paint";
import type { Meta } from "./types";

const STRIP_WIDTH = 8192; // a longer strip wraps onto more rows of one canvas

/** A tile's canvas size (`cw`×`ch` pixels) and how many values it holds. */
export function tileGeometry(layout: Layout): { cw: number; ch: number; size: number } {
  if (layout.kind === "strips") {
    const cw = Math.min(layout.w, STRIP_WIDTH);
    return { cw, ch: Math.ceil(layout.w / cw), size: layout.w };
  }
  return { cw: layout.w, ch: layout.h, size: layout.w * layout.h };
}

/** The (y, x) pixel of a tile under the pointer at (`fx`, `fy`), fractions of its drawn box, and the value offset
 *  inside the tile; null outside its values (the unused end of a wrapped strip). */
export function pixelAt(layout: Layout, fx: number, fy: number): { y: number; x: number; offset: number } | null {
  const { cw, ch, size } = tileGeometry(layout);
  const x = Math.min(cw - 1, Math.floor(fx * cw));
  const y = Math.min(ch - 1, Math.floor(fy * ch));
  const offset = layout.kind === "strips" ? y * cw + x : y * layout.w + x;
  if (x < 0 || y < 0 || offset >= size) return null;
  return layout.kind === "strips" ? { y: 0, x: offset, offset } : { y, x, offset };
}

/** The colour map a repaint uses. */
export interface Mapping {
  shift: number;
  scale: number;
}

export class TileGrid {
  readonly element: HTMLDivElement;
  private meta: Meta | null = null;
  private values: Values = new Float32Array(0);
  private canvases: HTMLCanvasElement[] = [];
  private cells: HTMLElement[] = []; // what is observed: the tile's card, else the tile
  private histograms: HistogramSet | null = null;
  private painted: number[] = []; // the generation each tile was painted at
  private generation = 0;
  private table: Uint32Array | undefined;
  private observer: IntersectionObserver | null = null;
  private readonly visible = new Set<number>();
  private arrived = 0;
  private reported = false;

  constructor(private readonly root: HTMLElement, private readonly mapping: () => Mapping) {
    this.element = document.createElement("div");
    this.element.className = "dld-ci-grid";
  }

  /** Drop the tiles shown (a message instead of a tensor, or before new ones). */
  clear(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.visible.clear();
    this.element.replaceChildren();
    this.canvases = [];
    this.cells = [];
    this.painted = [];
    this.meta = null;
    this.histograms = null;
    this.root.dataset.histograms = "0";
  }

  /** Build one canvas per tile shown of `meta` over `values` (`detail`: large, in cards with their histograms), and
   *  paint those in view. */
  show(meta: Meta, values: Values, detail = false, histograms: HistogramSet | null = null): void {
    this.clear();
    this.reported = false;
    this.arrived = performance.now();
    this.meta = meta;
    this.values = values;
    this.histograms = histograms;
    const layout = meta.layout;
    const strips = layout.kind === "strips";
    const { cw, ch } = tileGeometry(layout);
    const box = tileBox(layout, this.element.clientWidth || 600, detail);
    this.element.classList.toggle("dld-ci-strips", strips);
    this.element.classList.toggle("dld-ci-detail", detail);
    const fragment = document.createDocumentFragment();
    for (let i = 0; i < meta.shown; i++) {
      const canvas = document.createElement("canvas");
      canvas.className = "dld-ci-tile";
      canvas.width = cw;
      canvas.height = ch;
      canvas.style.width = strips ? "100%" : `${box.width}px`;
      canvas.style.height = `${box.height * (strips ? ch : 1)}px`;
      canvas.dataset.tile = String(i);
      const cell = detail ? makeCard(layout, i, canvas, box.width, histograms?.at(i) ?? null) : canvas;
      fragment.appendChild(cell);
      this.cells.push(cell);
      this.canvases.push(canvas);
      this.painted.push(-1);
    }
    this.element.appendChild(fragment);
    this.root.dataset.histograms = String(histograms ? Math.min(histograms.tiles, meta.shown) : 0);
    this.recolour();
    if (typeof IntersectionObserver === "undefined") {
      this.canvases.slice(0, 64).forEach((_, i) => this.visible.add(i));
      this.visible.forEach((i) => this.paint(i));
      this.report();
      return;
    }
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), {
      root: this.element, rootMargin: "256px",
    });
    this.cells.forEach((c) => this.observer?.observe(c));
  }

  /** A new shift/scale: the tiles in view repaint now, the others when they scroll in. */
  recolour(): void {
    this.generation++;
    const { shift, scale } = this.mapping();
    const meta = this.meta;
    this.table = meta && meta.encoding.dtype === "uint8" ? lookupTable(meta.encoding, shift, scale) : undefined;
    this.visible.forEach((i) => this.paint(i));
    this.root.dataset.generation = String(this.generation);
  }

  /** The readout of the value under the pointer (null when it is over no tile's value). */
  readoutAt(event: MouseEvent): string | null {
    const target = event.target as HTMLElement;
    const meta = this.meta;
    if (!meta || !target.dataset) return null;
    const rect = target.getBoundingClientRect();
    const fx = (event.clientX - rect.left) / Math.max(1, rect.width);
    if (target.dataset.hist !== undefined) {
      const i = Number(target.dataset.hist);
      const h = this.histograms?.at(i);
      return h ? binReadout(channelName(meta.layout, i), h, fx) : null;
    }
    if (target.tagName !== "CANVAS" || target.dataset.tile === undefined) return null; // a card's label
    const i = Number(target.dataset.tile);
    const at = pixelAt(meta.layout, fx, (event.clientY - rect.top) / Math.max(1, rect.height));
    if (!at) return null;
    const v = valueAt(this.values, meta.encoding, i * tileGeometry(meta.layout).size + at.offset);
    return readout(meta.layout, i, at.y, at.x, v, meta.encoding.dtype === "uint8");
  }

  dispose(): void {
    this.observer?.disconnect();
    this.observer = null;
  }

  private paint(i: number): void {
    const meta = this.meta;
    if (!meta || this.painted[i] === this.generation) return;
    const { cw, ch, size } = tileGeometry(meta.layout);
    const ctx = this.canvases[i].getContext("2d");
    if (!ctx) return;
    const { shift, scale } = this.mapping();
    const image = ctx.createImageData(cw, ch);
    paintInto(image.data, this.values, meta.encoding, i * size, size, shift, scale, this.table);
    ctx.putImageData(image, 0, 0);
    if (this.cells[i] !== this.canvases[i])
      paintCard(this.cells[i], this.histograms?.at(i) ?? null, (v) => colourOf(v, shift, scale));
    this.painted[i] = this.generation;
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      const i = Number((entry.target as HTMLElement).dataset.tile);
      if (entry.isIntersecting) {
        this.visible.add(i);
        this.paint(i);
      } else this.visible.delete(i);
    }
    this.report();
  }

  /** Once per tensor: the first screen's paint time, on the next frame. */
  private report(): void {
    if (this.reported) return;
    this.reported = true;
    requestAnimationFrame(() => {
      const ms = performance.now() - this.arrived;
      this.root.dataset.paintMs = ms.toFixed(1);
      this.root.dataset.paintedTiles = String(this.painted.filter((g) => g === this.generation).length);
      this.root.dispatchEvent(new CustomEvent("dld-channel-painted", { bubbles: true, detail: { ms } }));
    });
  }
}

