/**
 * The diff overlay (Python half: dld_jupyter/widgets/canvas/overlays/diff.py; designer.compare_with): the newer
 * model's canvas coloured by a structural diff: added nodes blue, changed ones orange (their changes in the tooltip),
 * a collapsed group by the changes inside it (its tooltip counts them). The legend gives the headline, the removed
 * nodes (not on this canvas) and other changes (functions, graph inputs/outputs, opsets), and walks the changes with
 * Previous/Next: each asks the kernel to focus the node, which expands its groups.
 */
import type { NodeSingular } from "cytoscape";
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { OverlayKind } from "./base";
import { GroupCounts, MarkedOverlay, focusNode, groupMark, legendHead, paint, swatch } from "./marks";
import { el } from "../../../common/dom";

export interface DiffSetMessage extends OverlayMessage {
  source: string;
  headline: string;
  marks: Record<string, string>;
  details: Record<string, string[]>;
  order: string[];
  groups: GroupCounts;
  removed: string[];
  removed_count: number;
  other: string[];
  renamed: number;
}

const PRIORITY = ["changed", "added"];

export class DiffOverlay extends MarkedOverlay<DiffSetMessage> {
  position = -1; // the change Previous/Next last focused

  constructor(ctx: CanvasContext) {
    super(ctx, "diff");
  }

  protected show(data: DiffSetMessage): void {
    this.data = data;
    this.position = -1;
    this.refresh();
  }

  private markOf(n: NodeSingular): string | null {
    const data = this.data as DiffSetMessage;
    return n.hasClass("group") ? groupMark(data.groups[n.id()], PRIORITY) : (data.marks[n.id()] ?? null);
  }

  refresh(): void {
    if (!this.data || !this.drawn) return;
    paint(this.ctx, (n) => this.markOf(n), null);
    this.mark();
    this.drawLegend();
  }

  /** Focus the next (+1) or previous (-1) change, wrapping around. */
  step(by: number): void {
    const order = this.data?.order ?? [];
    if (!order.length) return;
    this.position = (this.position + by + order.length) % order.length;
    focusNode(this.ctx, "diff", order[this.position]);
    this.drawLegend();
  }

  private drawLegend(): void {
    const data = this.data;
    if (!data) return;
    const box = this.box("dld-diff-legend");
    const tip = `Compared with ${data.source}: nodes paired by structure, names only a hint.`;
    const head = legendHead("Changes", tip);
    const summary = el("div", "dld-cmp-summary", `From ${data.source}: ${data.headline}`);
    const nav = el("div", "dld-cmp-nav");
    const prev = el("button", "dld-diff-prev", "◀ Previous");
    const next = el("button", "dld-diff-next", "Next ▶");
    const at = el("span", "dld-diff-at", data.order.length ? `${this.position + 1} / ${data.order.length}` : "no change here");
    for (const b of [prev, next]) {
      b.type = "button";
      b.disabled = !data.order.length;
    }
    nav.append(prev, at, next);
    const keys = el("div", "dld-cmp-keys");
    keys.append(swatch("added", "added"), swatch("changed", "changed"));
    box.replaceChildren(head, summary, keys, nav);
    if (data.removed_count) {
      const removed = el("details", "dld-diff-removed");
      removed.append(el("summary", "", `${data.removed_count} removed (not on this canvas)`));
      const list = el("ul");
      for (const item of data.removed) list.append(el("li", "", item));
      if (data.removed_count > data.removed.length) list.append(el("li", "", `… ${data.removed_count - data.removed.length} more`));
      removed.append(list);
      box.append(removed);
    }
    for (const line of data.other) box.append(el("div", "dld-diff-other", line));
    if (data.renamed) box.append(el("div", "dld-cmp-note", `${data.renamed} paired nodes are named differently (not a change)`));
  }

  protected boxClick(name: string, event: Event): void {
    const target = event.target as HTMLElement;
    if (target.closest(".dld-diff-prev")) this.step(-1);
    else if (target.closest(".dld-diff-next")) this.step(1);
    else super.boxClick(name, event);
  }

  protected groupText(counts: Record<string, number>): string {
    return Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(", ");
  }

  protected describe(n: NodeSingular, name: string, op: string): string[] | null {
    const mark = this.data?.marks[n.id()];
    if (!mark) return null;
    return [`${op} · ${name}`, mark === "added" ? "added" : "changed:", ...(this.data?.details[n.id()] ?? [])];
  }
}

export const diffOverlay: OverlayKind = { name: "diff", paints: true, make: (ctx) => new DiffOverlay(ctx) };
