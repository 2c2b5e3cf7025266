/**
 * The Network Overview overlay (Python half: dld_jupyter/widgets/canvas/overlays/analysis.py), drawn while a model is
 * analysed: each glyph gains a line under its label (its current output shape, and its latest time when layer
 * timings are on), a node with a breakpoint wears the red badge, the node the debugger stopped at is outlined, and
 * the selected nodes' input links turn yellow and their output links blue (seed 001 §4.4). Its context-menu items
 * (Add/Remove Breakpoint, Inspect Channels) are asked of the kernel, which answers with a new "set".
 *
 * State Python knows: lines, breakpoints, the stop. State Python never sees: the link colours of the selection.
 */
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { CanvasOverlay, OverlayKind, OverlayMenuItem } from "./base";

export interface AnalysisSetMessage extends OverlayMessage {
  lines: Record<string, string>;
  breakpoints: string[];
  position: string | null;
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
        const line = data.lines[n.id()];
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
    if (!this.data || !this.ctx.store.nodes.get(id) || this.ctx.store.nodes.get(id)?.kind !== "op") return [];
    const on = this.breakpoints.has(id);
    const ask = (action: string) => () => this.ctx.model.send({ kind: "overlay", overlay: "analysis", action, id });
    return [
      { label: on ? "Remove Breakpoint" : "Add Breakpoint", run: ask(on ? "remove_breakpoint" : "add_breakpoint") },
      { label: "Inspect Channels", run: ask("inspect") },
    ];
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
    cy.batch(() => cy.elements(".an, .an-bp, .an-here, .an-in, .an-out").removeClass("an an-bp an-here an-in an-out"));
    delete this.ctx.root.dataset.analysis;
    delete this.ctx.root.dataset.analysisPosition;
  }
}

export const analysisOverlay: OverlayKind = { name: "analysis", make: (ctx) => new AnalysisOverlay(ctx) };
