/**
 * One report: summary and recommendations, the timeline, the layer table with its selection summary, and the
 * charts. Wires the parts together: table selection outlines layers on the timeline, a click on the timeline
 * selects in the table, double-clicking a row zooms the timeline to that layer.
 */
import { LatencyChart, PrecisionChart } from "./charts";
import { ViewContext } from "./context";
import { ReportData } from "./data";
import { el } from "./format";
import { LayerTable } from "./layer_table";
import { Menu } from "./menu";
import { recommendationsView } from "./recommendations";
import { summaryView } from "./summary";
import { TimelineView } from "./timeline";

export class ReportView {
  readonly root = el("div", "dld-r-report");
  readonly timeline: TimelineView;
  readonly table: LayerTable;

  constructor(host: HTMLElement, ctx: ViewContext, data: ReportData, reportIndex: number, menu: Menu, syncModel: boolean) {
    host.appendChild(this.root);
    const top = el("div", "dld-r-top");
    top.append(summaryView(data));
    top.append(recommendationsView(ctx, data.recommendations, (layers) => this.table.select(layers)));
    this.root.append(top);
    this.timeline = new TimelineView(this.root, ctx, data, menu);
    this.table = new LayerTable(this.root, ctx, data, menu, {
      reportIndex,
      syncModel,
      onActivate: (pos) => this.timeline.zoomToLayer(pos),
      onSelection: (sel) => this.timeline.highlight(sel),
    });
    this.timeline.onPick = (layer) => this.table.select([layer]);
    this.timeline.highlight([...this.table.table.selection]);
    const charts = el("div", "dld-r-charts");
    this.root.append(charts);
    new LatencyChart(charts, ctx, [data]);
    new PrecisionChart(charts, data);
  }
}
