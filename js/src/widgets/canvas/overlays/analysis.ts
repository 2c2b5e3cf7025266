/**
 * The Network Overview overlay (Python half: dld_jupyter/widgets/canvas/overlays/analysis.py), drawn while a model is
 * analysed: each glyph gains a line under its label (its current output shape, and its latest time when layer
 * timings are on), a node with a breakpoint wears the red badge, the node the debugger stopped at is outlined, and
 * the selected nodes' input links turn yellow and their output links blue (seed 001 §4.4). A node an analysis layer
 * follows (seed 001 §4: Mix, Affine, Noise, Snapshot, living in the analysis copy only) wears a dashed violet
 * border and a "+ <layer>" line. Its context-menu items (Add/Remove Breakpoint, Inspect Channels, Add Analysis
 * Layer: <kind> after the node, a Mix of it and a second selected node, Remove Analysis Layer) are asked of the
 * kernel, which answers with a new "set".
 *
 * State Python knows: lines, breakpoints, the stop, the layers. State Python never sees: the selection's link colours.
 */
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { CanvasOverlay, OverlayKind, OverlayMenuItem } from "./base";

export interface AnalysisSetMessage extends OverlayMessage {
  lines: Record<string, string>;
  breakpoints: string[];
  position: string | null;
  /** Node id → the analysis layers that follow it (absent from kernels before them). */
  layers?: Record<string, { name: string; kind: string }[]>;
}

/** What a node's menu asks of the kernel: the words of AnalysisRequest (widgets/canvas/overlays/analysis.py; a
 * Python test reads this list and checks they are equal). */
export const ANALYSIS_REQUESTS = ["add_breakpoint", "remove_breakpoint", "inspect", "add_layer", "remove_layer"] as const;
export type AnalysisRequest = (typeof ANALYSIS_REQUESTS)[number];

/** The Analysis category's kinds a node's menu adds after it (a Mix also reads a second selected node). */
export const LAYER_KINDS = ["Affine", "Noise", "Snapshot"];

/** A layer's short name on the glyph: "/analysis/Noise1" → "Noise1". */
export function layerText(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** The label a glyph shows during analysis: its own, then the analysis line. */
export function analysisLabel(label: string, line: string): string {
  return label ? `${label}\n${line}` : line;
}

export class AnalysisOverlay implements CanvasOverlay {
  data: AnalysisSetMessage | null = null;
  drawn = true; // the strip's word: visible (it colours no node, so it is drawn beside the colour owner)
  private breakpoints = new Set<string>();

  constructor(private readonly ctx: CanvasContext) {
    ctx.listeners.cy(ctx.cy, "select unselect", "node", () => this.links());
  }

  receive(msg: OverlayMessage): void {
    if (msg.action === "set") {
      this.data = msg as AnalysisSetMessage;
      this.breakpoints = new Set(this.data.breakpoints);
      this.refresh();
    } else if (msg.action === "clear") this.clear();
  }

  refresh(): void {
    const data = this.data;
    if (!data || !this.drawn) return;
    const { cy } = this.ctx;
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        const layers = data.layers?.[n.id()] ?? [];
        const line = [data.lines[n.id()], ...layers.map((l) => `+ ${layerText(l.name)}`)].filter(Boolean).join("\n");
        n.toggleClass("an-layer", layers.length > 0);
        if (line) {
          n.data("alabel", analysisLabel(String(n.data("label") ?? ""), line));
          if (!n.hasClass("an")) n.addClass("an");
        } else if (n.hasClass("an")) n.removeClass("an");
        n.toggleClass("an-bp", this.breakpoints.has(n.id()));
        n.toggleClass("an-here", n.id() === data.position);
      });
    });
    this.links();
    this.ctx.root.dataset.analysis = "1";
    this.ctx.root.dataset.analysisPosition = data.position ?? "";
  }

  /** Input links of the selected nodes yellow, output links blue (only while analysing). */
  private links(): void {
    const { cy } = this.ctx;
    cy.batch(() => {
      cy.edges(".an-in, .an-out").removeClass("an-in an-out");
      if (!this.data || !this.drawn) return;
      const selected = cy.nodes(":selected");
      selected.incomers("edge").addClass("an-in");
      selected.outgoers("edge").addClass("an-out");
    });
  }

  menuItems(id: string): OverlayMenuItem[] {
    const kind = this.ctx.store.nodes.get(id)?.kind;
    if (!this.data || (kind !== "op" && kind !== "input")) return [];
    const ask = (action: AnalysisRequest, extra: Record<string, string> = {}) => () =>
      void this.ctx.channel.overlayRequest({ overlay: "analysis", action, id, ...extra });
    const items: OverlayMenuItem[] = [];
    if (kind === "op") {
      const on = this.breakpoints.has(id);
      items.push({ label: on ? "Remove Breakpoint" : "Add Breakpoint", run: ask(on ? "remove_breakpoint" : "add_breakpoint") });
      items.push({ label: "Inspect Channels", run: ask("inspect") });
    }
    for (const layer of LAYER_KINDS) items.push({ label: `Add Analysis Layer: ${layer}`, run: ask("add_layer", { layer }) });
    const other = this.ctx.cy.nodes(":selected").filter((n) => n.id() !== id && ["op", "input"].includes(this.ctx.store.nodes.get(n.id())?.kind ?? ""));
    if (other.length === 1) {
      const name = String(other[0].data("label") ?? other[0].id()).split("\n")[0];
      items.push({ label: `Add Analysis Layer: Mix with ${name}`, run: ask("add_layer", { layer: "Mix", other: other[0].id() }) });
    }
    for (const layer of this.data.layers?.[id] ?? []) {
      items.push({ label: `Remove Analysis Layer ${layerText(layer.name)}`, run: ask("remove_layer", { layer: layer.name }) });
    }
    return items;
  }

  clear(): void {
    this.data = null;
    this.breakpoints.clear();
    this.undraw();
  }

  present(drawn: boolean): void {
    this.drawn = drawn;
    if (drawn) this.refresh();
    else this.undraw();
  }

  /** Nothing of it on the canvas (its state kept: shown again, it comes back). */
  private undraw(): void {
    const { cy } = this.ctx;
    cy.batch(() => cy.elements(".an, .an-bp, .an-here, .an-in, .an-out, .an-layer").removeClass("an an-bp an-here an-in an-out an-layer"));
    delete this.ctx.root.dataset.analysis;
    delete this.ctx.root.dataset.analysisPosition;
  }
}

export const analysisOverlay: OverlayKind = { name: "analysis", make: (ctx) => new AnalysisOverlay(ctx) };
