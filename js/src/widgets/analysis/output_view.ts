/**
 * The Analysis Output anywidget (Python half: dld_jupyter/widgets/analysis/output_view.py, which decides each
 * output's reading in output_kinds.py): an image output drawn from its RGBA pixels, class scores as a top-k table,
 * anything else as its statistics and a histogram. Synced state only (`outputs`, `pixels`, `message`); names,
 * shapes and dtypes are drawn as text, never markup.
 */
import type { RenderProps } from "@anywidget/types";
import "./output_view.css";
import { element, redrawOn } from "./dom";
import { formatValue } from "./channel_inspector/paint";

interface OutputModel {
  outputs: OutputEntry[];
  pixels: DataView | null;
  message: string;
}

export interface ClassRow { index: number; score: number; probability: number }

export interface OutputEntry {
  name: string;
  shape: number[];
  dtype: string;
  kind: "image" | "classes" | "stats";
  images?: number;
  of?: number;
  height?: number;
  width?: number;
  offset?: number;
  rows?: ClassRow[][];
  softmax?: boolean;
  row_count?: number;
  classes?: number;
  stats?: { count: number; minimum: number | null; maximum: number | null; mean: number | null; std: number | null; nan: number; inf: number };
  histogram?: { counts: number[]; low: number | null; high: number | null };
}

const num = (v: number | null | undefined): string => (v === null || v === undefined ? "—" : formatValue(v));

/** The heading line of an output: its name, shape and dtype. */
export function heading(entry: OutputEntry): string {
  return `${entry.name} · ${entry.shape.length ? entry.shape.join("×") : "scalar"} ${entry.dtype}`;
}

/** Bar heights (0..1) of a histogram, the largest bin at 1. */
export function barHeights(counts: number[]): number[] {
  const top = Math.max(1, ...counts);
  return counts.map((c) => c / top);
}

function imageView(entry: OutputEntry, pixels: DataView | null): HTMLElement {
  const box = element("div", "dld-ao-images");
  const w = entry.width ?? 0;
  const h = entry.height ?? 0;
  const size = w * h * 4;
  for (let i = 0; i < (entry.images ?? 0) && pixels; i++) {
    const canvas = element("canvas", "dld-ao-image");
    canvas.width = w;
    canvas.height = h;
    const start = pixels.byteOffset + (entry.offset ?? 0) + i * size;
    const ctx = canvas.getContext("2d");
    if (ctx && start + size <= pixels.byteOffset + pixels.byteLength) {
      const image = ctx.createImageData(w, h);
      image.data.set(new Uint8ClampedArray(pixels.buffer, start, size));
      ctx.putImageData(image, 0, 0);
    }
    box.appendChild(canvas);
  }
  if ((entry.of ?? 0) > (entry.images ?? 0)) box.appendChild(element("div", "dld-ao-note", `showing ${entry.images} of ${entry.of} images`));
  return box;
}

function classTable(entry: OutputEntry): HTMLElement {
  const box = element("div", "dld-ao-classes");
  const how = entry.softmax ? "softmax of the scores" : "the scores are probabilities";
  box.appendChild(element("div", "dld-ao-note", `top ${entry.rows?.[0]?.length ?? 0} of ${entry.classes} classes (${how})`));
  (entry.rows ?? []).forEach((row, n) => {
    const table = element("table", "dld-ao-table");
    const head = table.createTHead().insertRow();
    for (const label of [`row ${n}: class`, "probability", "score"]) head.appendChild(element("th", "", label));
    const body = table.createTBody();
    for (const item of row) {
      const tr = body.insertRow();
      tr.appendChild(element("td", "", String(item.index)));
      const cell = element("td", "dld-ao-prob");
      const bar = element("span", "dld-ao-bar");
      bar.style.width = `${Math.round(item.probability * 100)}%`;
      cell.append(bar, element("span", "", `${(item.probability * 100).toFixed(2)}%`));
      tr.appendChild(cell);
      tr.appendChild(element("td", "", num(item.score)));
    }
    box.appendChild(table);
  });
  if ((entry.row_count ?? 0) > (entry.rows?.length ?? 0)) box.appendChild(element("div", "dld-ao-note", `first ${entry.rows?.length} of ${entry.row_count} rows`));
  return box;
}

function statsView(entry: OutputEntry): HTMLElement {
  const box = element("div", "dld-ao-stats");
  const s = entry.stats;
  if (s) {
    const line = `min ${num(s.minimum)} · max ${num(s.maximum)} · mean ${num(s.mean)} · std ${num(s.std)} · NaN ${s.nan} · Inf ${s.inf}`;
    box.appendChild(element("div", "dld-ao-line", line));
  }
  const hist = entry.histogram;
  if (hist && hist.counts.length) {
    const bars = element("div", "dld-ao-hist");
    barHeights(hist.counts).forEach((height, i) => {
      const bar = element("div", "dld-ao-hbar");
      bar.style.height = `${Math.max(1, Math.round(height * 100))}%`;
      bar.title = `${hist.counts[i]}`;
      bars.appendChild(bar);
    });
    box.append(bars, element("div", "dld-ao-note", `${num(hist.low)} … ${num(hist.high)}`));
  }
  return box;
}

function render({ model, el }: RenderProps<OutputModel>): () => void {
  const root = element("div", "dld-ao");
  el.appendChild(root);
  const draw = (): void => {
    root.replaceChildren(element("div", "dld-ao-message", model.get("message")));
    for (const entry of model.get("outputs") ?? []) {
      const section = element("section", `dld-ao-output dld-ao-${entry.kind}-output`);
      section.appendChild(element("div", "dld-ao-heading", heading(entry)));
      if (entry.kind === "image") section.appendChild(imageView(entry, model.get("pixels")));
      else if (entry.kind === "classes") section.appendChild(classTable(entry));
      else section.appendChild(statsView(entry));
      root.appendChild(section);
    }
    root.dataset.outputs = String((model.get("outputs") ?? []).length);
  };
  return redrawOn(model, ["change:outputs", "change:pixels", "change:message"], root, draw);
}

export default { render };
