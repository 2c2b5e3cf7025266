/**
 * The heat overlay (Python half: dld_jupyter/widgets/canvas/overlays/heat.py; designer.show_heat / clear_heat): op nodes and
 * collapsed groups coloured by a report's layer time or share (heat_scale.ts), a legend (scale ends with units,
 * metric switch, close), and a tooltip with the layer's figures. Colours are element data + a class, so the
 * category colours come back untouched when the heat is cleared. Re-applied after every snapshot and patch (new
 * elements, an expanded or collapsed group), and the scale always spans what the canvas shows. Drawn only while it
 * owns the node colours (the overlay strip, strip.ts); otherwise it keeps its data and draws nothing.
 */
import type { NodeSingular } from "cytoscape";
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { CanvasOverlay, OverlayKind } from "./base";
import {
  HeatData, HeatMetric, HeatSetMessage, HeatViewMessage, decodeHeat, formatEnds, formatValue, gradient, heatColor, middleOf, scaleOf,
} from "./heat_scale";

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls = "", text = ""): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
};

/** Elements the heat colours: op nodes and collapsed groups (an expanded group is a frame around its members). */
const coloured = (n: NodeSingular): boolean => n.hasClass("op") || (n.hasClass("group") && n.hasClass("collapsed"));

const toDoubles = (b: DataView | undefined): Float64Array =>
  b ? new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) : new Float64Array();

export class HeatOverlay implements CanvasOverlay {
  data: HeatData | null = null;
  metric: HeatMetric = "time";
  range = { min: 0, max: 0 };
  timed = false; // some element on the canvas has a value (else the legend says so, not a 0 … 0 scale)
  drawn = true; // the strip's word: visible and owning the node colours
  private legend: HTMLDivElement | null = null;
  private tip: HTMLDivElement | null = null;

  constructor(private readonly ctx: CanvasContext) {
    const { cy, listeners } = ctx;
    listeners.cy(cy, "mouseover", "node", (event) => this.hover(event.target as NodeSingular, event.renderedPosition));
    // Back on the node it last saw (the pointer left the canvas, or the overlays changed under it): cytoscape sends
    // no second mouseover, so a move over a node whose tooltip is hidden shows it again.
    listeners.cy(cy, "mousemove", "node", (event) => {
      if (this.tip?.style.display !== "") this.hover(event.target as NodeSingular, event.renderedPosition);
    });
    listeners.cy(cy, "mouseout", "node", () => this.hideTip());
    listeners.cy(cy, "viewport", null, () => this.hideTip());
    listeners.dom(ctx.root, "mouseleave", () => this.hideTip()); // to the Run / Step buttons: no mouseout comes
    listeners.add(() => this.dispose());
  }

  /** The kernel's "set" (a report's values, their Float64 buffer) or "clear". */
  receive(msg: OverlayMessage, buffers: DataView[]): void {
    if (msg.action === "set") this.show(decodeHeat(msg as HeatSetMessage, toDoubles(buffers[0])));
    else if (msg.action === "clear") this.clear();
  }

  private send(msg: HeatViewMessage): void {
    void this.ctx.channel.overlayRequest(msg);
  }

  show(data: HeatData): void {
    this.data = data;
    this.metric = data.metric;
    this.refresh();
  }

  clear(): void {
    this.data = null;
    this.undraw();
  }

  present(drawn: boolean): void {
    this.drawn = drawn;
    if (drawn) this.refresh();
    else this.undraw();
  }

  /** Nothing of the heat on the canvas (its data kept). */
  private undraw(): void {
    this.hideTip();
    this.legend?.remove(); // kept for the next draw
    delete this.ctx.root.dataset.heat;
    this.ctx.cy.batch(() => this.ctx.cy.nodes(".heat, .heat-none").removeClass("heat heat-none"));
  }

  /** Colour what the canvas shows now, the scale spanning its values. */
  refresh(): void {
    const data = this.data;
    if (!data || !this.drawn) return;
    const { cy } = this.ctx;
    const values = data.values[this.metric];
    let min = Infinity;
    let max = -Infinity;
    const nodes = cy.nodes().filter(coloured);
    nodes.forEach((n) => {
      const i = data.index.get(n.id());
      const v = i === undefined ? NaN : values[i];
      if (Number.isFinite(v)) {
        if (v > 0) min = Math.min(min, v); // a logarithmic scale starts at the smallest time above zero
        max = Math.max(max, v);
      }
    });
    this.timed = Number.isFinite(max);
    this.range = this.timed ? { min: Number.isFinite(min) ? min : max, max } : { min: 0, max: 0 };
    cy.batch(() => {
      nodes.forEach((n) => {
        const i = data.index.get(n.id());
        const v = i === undefined ? NaN : values[i];
        // Only what changed: every data or class write restyles the element (thousands on a big model's patch).
        if (Number.isFinite(v)) {
          const c = heatColor(scaleOf(v, min, max));
          if (n.data("heat") !== c.bg) n.data({ heat: c.bg, heatfg: c.fg });
          if (!n.hasClass("heat")) n.removeClass("heat-none").addClass("heat");
        } else if (!n.hasClass("heat-none")) {
          n.removeClass("heat").addClass("heat-none");
        }
      });
    });
    this.ctx.root.dataset.heat = this.metric;
    this.drawLegend();
  }

  private drawLegend(): void {
    const data = this.data;
    if (!data) return;
    if (!this.legend) {
      // Made once: its listeners (one click listener serves its buttons) stay with it, however often it is drawn.
      this.legend = el("div", "dld-heat-legend");
      // Clicks on the legend stay out of the canvas (no deselect, no rubber band).
      for (const type of ["mousedown", "pointerdown", "click", "dblclick", "wheel"]) {
        this.ctx.listeners.dom(this.legend, type, (e: Event) => e.stopPropagation());
      }
      this.ctx.listeners.dom(this.legend, "click", (e: Event) => this.legendClick(e));
    }
    if (!this.legend.isConnected) this.ctx.root.appendChild(this.legend);
    const box = this.legend;
    box.replaceChildren();
    const head = el("div", "dld-heat-head");
    const title = el("span", "dld-heat-title", this.metric === "time" ? "Layer time (median)" : "Share of the layer sum");
    title.title = `From ${data.source}: an op node shows the time of its layer; a collapsed group the sum of its layers.`;
    const close = el("button", "dld-heat-close", "×");
    close.type = "button";
    close.title = "Hide the heat (back to the category colours)";
    close.setAttribute("aria-label", "Hide the heat");
    head.append(title, close);
    const bar = el("div", "dld-heat-bar");
    bar.style.background = gradient();
    const ends = el("div", "dld-heat-ends");
    const { min, max } = this.range;
    if (this.timed) {
      const [low, middle, high] = formatEnds([min, middleOf(min, max), max], this.metric);
      ends.append(el("span", "dld-heat-min", low), el("span", "dld-heat-mid", middle), el("span", "dld-heat-max", high));
      ends.title = "Logarithmic scale: the middle colour is the geometric mean of the ends";
    } else {
      // Not "0.0 µs … 0.0 µs": nothing drawn has a time (another model's report, or only new nodes in view).
      ends.append(el("span", "dld-heat-empty", "No node on the canvas has a time in this report"));
    }
    const switcher = el("div", "dld-heat-metric");
    for (const [metric, label] of [["time", "Time"], ["share", "Share %"]] as const) {
      const b = el("button", metric === this.metric ? "active" : "", label);
      b.type = "button";
      b.dataset.metric = metric;
      b.setAttribute("aria-pressed", String(metric === this.metric));
      switcher.append(b);
    }
    const none = el("div", "dld-heat-none-key");
    const swatch = el("span", "dld-heat-swatch");
    none.append(swatch, el("span", "", "no time (removed by the optimizer, or new)"));
    const source = el("div", "dld-heat-source", data.source);
    box.append(head, bar, ends, switcher, none, source);
  }

  /** The legend's close × and metric switch (one listener on the legend). */
  private legendClick(event: Event): void {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button");
    if (button?.classList.contains("dld-heat-close")) {
      this.clear();
      this.send({ kind: "overlay", overlay: "heat", action: "closed" });
      return;
    }
    const metric = button?.dataset.metric as HeatMetric | undefined;
    if (!metric || this.metric === metric) return;
    this.metric = metric;
    this.refresh();
    this.send({ kind: "overlay", overlay: "heat", action: "metric", metric });
  }

  private hover(node: NodeSingular, at: { x: number; y: number }): void {
    const data = this.data;
    if (!data || !this.drawn || !coloured(node)) return;
    const i = data.index.get(node.id());
    const lines = this.describe(node, i);
    if (!this.tip) {
      this.tip = el("div", "dld-heat-tip");
      this.ctx.root.appendChild(this.tip);
    }
    const tip = this.tip;
    tip.replaceChildren(...lines.map(([cls, text]) => el("div", cls, text)));
    tip.style.display = "";
    const width = this.ctx.root.clientWidth;
    tip.style.left = `${Math.min(at.x + 14, Math.max(0, width - 300))}px`;
    tip.style.top = `${at.y + 14}px`;
  }

  /** The tooltip's lines: [class, text]. */
  describe(node: NodeSingular, i: number | undefined): Array<[string, string]> {
    const data = this.data as HeatData;
    const stored = this.ctx.store.nodes.get(node.id());
    const group = node.hasClass("group");
    const name = stored?.name || node.id();
    const op = stored?.op_type ?? "";
    const title = group ? `${name} (group)` : op && name !== op ? `${op} · ${name}` : op || name;
    const lines: Array<[string, string]> = [["dld-heat-tip-title", title]];
    const time = i === undefined ? NaN : data.values.time[i];
    if (i === undefined || !Number.isFinite(time)) {
      const reason = i === undefined ? "not in this report: added after it was profiled" : data.reasons[i];
      lines.push(["dld-heat-tip-none", `No time: ${reason}`]);
      return lines;
    }
    const share = data.values.share[i];
    const layers = data.layers[i];
    const count = data.layerCount[i];
    if (group) {
      lines.push(["", `Sum of ${count} layer${count === 1 ? "" : "s"}: ${formatValue(time, "time")} · ${formatValue(share, "share")}`]);
      lines.push(["dld-heat-tip-layers", `Largest: ${layers.map((k) => `${data.layerNames[k]} (${formatValue(data.median[k], "time")})`).join(", ")}`]);
      return lines;
    }
    for (const k of layers) {
      lines.push(["dld-heat-tip-layers", `Layer: ${data.layerNames[k]}`]);
      lines.push(["", `Median ${formatValue(data.median[k], "time")} · ${formatValue(data.percent[k], "share")} of the layer sum`]);
      if (Number.isFinite(data.ciLow[k])) {
        lines.push(["dld-heat-tip-ci", `95 % CI of the median: ${formatValue(data.ciLow[k], "time")} – ${formatValue(data.ciHigh[k], "time")}`]);
      }
    }
    if (layers.length > 1) lines.push(["", `Together: ${formatValue(time, "time")} · ${formatValue(share, "share")}`]);
    return lines;
  }

  hideTip(): void {
    if (this.tip) this.tip.style.display = "none";
  }

  dispose(): void {
    this.tip?.remove();
    this.legend?.remove();
    this.tip = null;
    this.legend = null;
  }
}

export const heatOverlay: OverlayKind = { name: "heat", paints: true, make: (ctx) => new HeatOverlay(ctx) };
