/**
 * The divergence overlay (Python half: dld_jupyter/widgets/canvas/overlays/divergence.py; designer.show_divergence,
 * check_against_original): paired nodes coloured red when past the tolerance and green within it, the first node
 * past it outlined, a collapsed group red when any node inside is past (its tooltip counts them). The legend names
 * the metric, the tolerance and the first node (a click focuses it). The per-node table is no longer drawn over the
 * canvas (a 640 px box on the graph): it opens in a tab of its own beside the designer, or below it in a notebook
 * (widgets/results/divergence_table.ts; issue 42).
 */
import type { NodeSingular } from "cytoscape";
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { OverlayKind } from "./base";
import { GroupCounts, MarkedOverlay, focusNode, groupMark, legendHead, paint, swatch } from "./marks";
import { el } from "../../../common/dom";

import { COLUMNS, DivergenceRow, formatCell, sortRows } from "../../results/divergence_rows";

export { COLUMNS, formatCell, sortRows };
export type { DivergenceRow };

export interface DivergenceSetMessage extends OverlayMessage {
  source: string;
  metric: string;
  tolerance: number;
  headline: string;
  first: string | null;
  first_name: string | null;
  first_row: number | null; // the first row past the tolerance in execution order (rows' index)
  rows: DivergenceRow[];
  groups: GroupCounts;
}

export class DivergenceOverlay extends MarkedOverlay<DivergenceSetMessage> {
  private byId = new Map<string, DivergenceRow>();

  constructor(ctx: CanvasContext) {
    super(ctx, "divergence");
  }

  protected show(data: DivergenceSetMessage): void {
    this.data = data;
    this.byId = new Map(data.rows.filter((r) => r.id && r.worst).map((r) => [r.id as string, r]));
    this.refresh();
  }

  private markOf(n: NodeSingular): string | null {
    const data = this.data as DivergenceSetMessage;
    if (n.hasClass("group")) return groupMark(data.groups[n.id()], ["over", "within"]);
    const row = this.byId.get(n.id());
    return row ? (row.over ? "over" : "within") : null;
  }

  refresh(): void {
    const data = this.data;
    if (!data || !this.drawn) return;
    paint(this.ctx, (n) => this.markOf(n), data.first);
    this.mark();
    this.drawLegend();
  }

  clear(): void {
    super.clear();
    this.byId.clear();
  }

  private drawLegend(): void {
    const data = this.data;
    if (!data) return;
    const below = data.metric === "cosine" || data.metric === "sqnr";
    const head = legendHead("Divergence", data.source);
    const rule = el("div", "dld-cmp-summary", `${data.metric} ${below ? "below" : "above"} ${formatCell(data.tolerance)} is past the tolerance`);
    const first = el("button", "dld-div-first", data.first_name ? `First past it: ${data.first_name}` : "No node past the tolerance");
    first.type = "button";
    first.disabled = !data.first;
    const keys = el("div", "dld-cmp-keys");
    keys.append(swatch("over", "past the tolerance (or NaN/Inf)"), swatch("within", "within it"));
    this.box("dld-div-legend").replaceChildren(head, rule, first, keys, el("div", "dld-cmp-note", data.headline));
  }

  protected boxClick(name: string, event: Event): void {
    const first = this.data?.first;
    if ((event.target as HTMLElement).closest(".dld-div-first") && first) focusNode(this.ctx, "divergence", first);
    else super.boxClick(name, event);
  }

  protected groupText(counts: Record<string, number>): string {
    return `${counts.over ?? 0} past the tolerance, ${counts.within ?? 0} within`;
  }

  protected describe(n: NodeSingular): string[] | null {
    const row = this.byId.get(n.id());
    if (!row) return null;
    return [
      `${row.op} · ${row.node}`,
      `max abs ${formatCell(row.max_abs)} · max rel ${formatCell(row.max_rel)}`,
      `cosine ${formatCell(row.cosine)} · SQNR ${formatCell(row.sqnr)} dB`,
      `NaN ${row.nan} · Inf ${row.inf}${row.over ? " · past the tolerance" : ""}`,
      ...(row.error ? [row.error] : []),
    ];
  }
}

export const divergenceOverlay: OverlayKind = { name: "divergence", paints: true, make: (ctx) => new DivergenceOverlay(ctx) };
