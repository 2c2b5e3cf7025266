/**
 * The node-data overlay (Python half: dld_jupyter/widgets/canvas/overlays/node_data.py; designer.show_node_data, the
 * "Open Node Data…" command): a Model Explorer node-data file drawn on the canvas. A node takes the file's colour
 * for it, else its value's colour on the file's gradient (stops 0..1 from the smallest to the largest value). The
 * legend shows the gradient between the two values, the file, and how many of its keys matched a node.
 */
import type { NodeSingular } from "cytoscape";
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { OverlayKind } from "./base";
import { Colour, GroupCounts, MarkedOverlay, legendHead, paint } from "./marks";
import { el } from "../../../common/dom";

export interface NodeDataSetMessage extends OverlayMessage {
  source: string;
  values: Record<string, number>;
  colours: Record<string, string>;
  names: Record<string, string>;
  gradient: Array<[number, string]>;
  matched: number;
  keys: number;
  missing: string[];
  groups: GroupCounts;
}

const rgb = (hex: string): [number, number, number] => {
  const h = hex.length === 4 ? hex.slice(1).split("").map((c) => c + c).join("") : hex.slice(1, 7);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
};
const hex = (c: number[]): string => `#${c.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

/** The colour at `t` (0..1) of a gradient of sorted stops, linear between them. */
export function gradientColour(stops: Array<[number, string]>, t: number): string {
  if (stops.length === 0) return "#888888";
  if (t <= stops[0][0]) return stops[0][1];
  for (let i = 1; i < stops.length; i++) {
    const [s1, c1] = stops[i];
    const [s0, c0] = stops[i - 1];
    if (t <= s1) {
      const f = s1 > s0 ? (t - s0) / (s1 - s0) : 1;
      const a = rgb(c0);
      const b = rgb(c1);
      return hex(a.map((v, k) => v + f * (b[k] - v)));
    }
  }
  return stops[stops.length - 1][1];
}

/** The smallest and largest value (a loop: spreading 100k values into Math.min overflows the stack). */
export function range(values: number[]): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (const v of values) {
    if (v < low) low = v;
    if (v > high) high = v;
  }
  return [low, high];
}

/** Black or white text, whichever reads on `bg`. */
export const textOn = (bg: string): string => {
  const [r, g, b] = rgb(bg);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#111111" : "#ffffff";
};

export class NodeDataOverlay extends MarkedOverlay<NodeDataSetMessage> {
  private colourOf = new Map<string, string>();
  private palette: Record<string, Colour> = {};

  constructor(ctx: CanvasContext) {
    super(ctx, "node_data");
  }

  protected show(data: NodeDataSetMessage): void {
    this.data = data;
    const [low, high] = range(Object.values(data.values));
    this.colourOf = new Map();
    this.palette = {};
    for (const [id, value] of Object.entries(data.values)) {
      const bg = data.colours[id] ?? gradientColour(data.gradient, high > low ? (value - low) / (high - low) : 0);
      this.colourOf.set(id, bg);
      this.palette[bg] = { bg, fg: textOn(bg) };
    }
    this.refresh();
  }

  refresh(): void {
    const data = this.data;
    if (!data || !this.drawn) return;
    paint(this.ctx, (n) => (n.hasClass("group") ? null : this.colourOf.get(n.id()) ?? null), null, this.palette);
    this.mark();
    this.drawLegend();
  }

  clear(): void {
    super.clear();
    this.colourOf.clear();
  }

  private drawLegend(): void {
    const data = this.data;
    if (!data) return;
    const [low, high] = range(Object.values(data.values));
    const head = legendHead("Node data", data.source);
    const bar = el("div", "dld-nd-bar");
    bar.style.background = `linear-gradient(to right, ${data.gradient.map(([s, c]) => `${c} ${s * 100}%`).join(", ")})`;
    bar.style.height = "10px";
    const ends = el("div", "dld-nd-ends", `${low.toPrecision(4)} … ${high.toPrecision(4)}`);
    const count = el("div", "dld-cmp-summary", `${data.source}: ${data.matched} of ${data.keys} keys matched a node`);
    const graded = Object.keys(data.values).some((id) => !(id in data.colours)); // else the file's colours only
    const parts = graded ? [head, bar, ends, count] : [head, el("div", "dld-cmp-note", "colours as the file gives them"), ends, count];
    if (data.missing.length) parts.push(el("div", "dld-cmp-note", `no node: ${data.missing.join(", ")}${data.keys - data.matched > data.missing.length ? ", …" : ""}`));
    this.box("dld-nd-legend").replaceChildren(...parts);
  }

  protected groupText(counts: Record<string, number>): string {
    return `${counts.valued ?? 0} nodes with node data`;
  }

  protected describe(n: NodeSingular, _name: string, op: string): string[] | null {
    const value = this.data?.values[n.id()];
    if (value === undefined) return null;
    return [`${op} · ${this.data?.names[n.id()] ?? n.id()}`, `value ${value.toPrecision(6)}`];
  }
}

export const nodeDataOverlay: OverlayKind = { name: "node_data", paints: true, make: (ctx) => new NodeDataOverlay(ctx) };
