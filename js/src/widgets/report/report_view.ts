/**
 * One report: layer baselines (Add / Clear Baseline), summary and recommendations, the timeline, the layer table
 * with its selection summary, and the charts. Wires the parts together: table selection outlines layers on the
 * timeline and shows the selected layer's metrics beside the baselines', a click on the timeline selects in the
 * table, double-clicking a row zooms the timeline to that layer; each baseline layer keeps its colour everywhere.
 */
import { Baselines, LayerMetricsChart } from "./baselines";
import { LatencyChart, LayerMark, PrecisionChart } from "./charts";
import { ViewContext } from "./context";
import { ReportData, text } from "./data";
import { el } from "./format";
import { LayerTable } from "./layer_table";
import { Menu } from "./menu";
import { recommendationsView } from "./recommendations";
import { splitter } from "./splitter";
import { summaryView } from "./summary";
import { TimelineView } from "./timeline";

export class ReportView {
  readonly root = el("div", "dld-r-report");
  readonly timeline: TimelineView;
  readonly table: LayerTable;
  readonly baselines: Baselines;
  private metrics?: LayerMetricsChart; // built after the table, whose first selection may come before it

  constructor(host: HTMLElement, ctx: ViewContext, data: ReportData, reportIndex: number, menu: Menu, syncModel: boolean) {
    host.appendChild(this.root);
    this.baselines = new Baselines(this.root, ctx, data, () => [...this.table.table.selection], syncModel);
    const top = el("div", "dld-r-top");
    top.append(summaryView(data));
    top.append(recommendationsView(ctx, data.recommendations, (layers) => this.table.select(layers)));
    this.root.append(top);
    this.timeline = new TimelineView(this.root, ctx, data, menu);
    this.table = new LayerTable(this.root, ctx, data, menu, {
      reportIndex,
      syncModel,
      onActivate: (pos) => this.timeline.zoomToLayer(pos),
      onSelection: (sel) => { this.timeline.highlight(sel); this.metrics?.select(sel); },
    });
    this.timeline.onPick = (layer) => this.table.select([layer]);
    this.timeline.highlight([...this.table.table.selection]);
    splitter(this.root, this.table.table.root, ctx.listeners, () => this.table.table.schedule());
    const charts = el("div", "dld-r-charts");
    this.root.append(charts);
    this.metrics = new LayerMetricsChart(charts, data, this.baselines);
    this.metrics.select([...this.table.table.selection]);
    const latency = new LatencyChart(charts, ctx, [data]);
    const precision = new PrecisionChart(charts, data);
    const paint = () => {
      const L = data.layers;
      const marks: LayerMark[] = this.baselines.marks().map((m) => ({
        type: text(L.type, m.layer), precision: text(L.precision, m.layer), ms: L.median[m.layer],
        percent: data.layerSum > 0 ? (100 * L.median[m.layer]) / data.layerSum : 0, colour: m.colour, label: m.label,
      }));
      latency.setMarks(marks);
      precision.setMarks(marks);
      this.timeline.setBaselines(new Map(this.baselines.marks().map((m) => [m.layer, m.colour])));
    };
    this.baselines.onChange(paint);
    paint();
  }
}
