/**
 * The inference timeline of the median pass (seed 000 "Inference Timeline", seed 003 "Timeline View"): one row
 * per stream, GPU metric rows below. Ctrl+wheel zooms around the pointer, the scrollbar (or Shift+wheel) scrolls,
 * dragging measures a time range, a click selects the layer in the table, the right-click menu zooms to fit or to
 * the measured range. Browser-only state: the view, the measurement and the hover.
 */
import { ViewContext } from "./context";
import { ReportData } from "./data";
import { el, ms } from "./format";
import { Menu } from "./menu";
import { readTheme, watchTheme } from "../../common/theme";
import { AXIS, draw, DrawState, GUTTER, heightOf, Lane, lanesOf, lowerBound, METRIC_ROW, ROW, View } from "./timeline_draw";

/** First index of sorted `times` at or after `t`. */
function firstAtOrAfter(times: Float64Array, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class TimelineView {
  readonly root = el("div", "dld-r-timeline");
  private readonly canvas = el("canvas", "dld-r-tl-canvas");
  private readonly scroll = el("div", "dld-r-tl-scroll");
  private readonly spacer = el("div", "dld-r-tl-spacer");
  private readonly tip = el("div", "dld-r-tip");
  private readonly lanes: Lane[];
  private readonly full: View;
  private readonly byLayer = new Map<number, number>(); // layer position -> its timeline event
  private readonly state: DrawState;
  private drag: { x: number; t: number } | null = null;
  private syncingScroll = false;
  readonly schedule: () => void;
  onPick: (layer: number) => void = () => {};
  lastDrawn = 0;

  constructor(host: HTMLElement, private readonly ctx: ViewContext, private readonly data: ReportData, private readonly menu: Menu) {
    const T = data.timeline;
    this.lanes = lanesOf(T);
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < T.count; i++) {
      lo = Math.min(lo, T.start[i]);
      hi = Math.max(hi, T.start[i] + T.duration[i]);
      if (T.layer[i] >= 0 && !this.byLayer.has(T.layer[i])) this.byLayer.set(T.layer[i], i);
    }
    for (const m of data.metrics) for (const t of m.times) { lo = Math.min(lo, t); hi = Math.max(hi, t); }
    if (!Number.isFinite(lo)) { lo = 0; hi = Math.max(data.summary.median_ms, 1e-3); }
    const pad = (hi - lo) * 0.01 || 1e-3;
    this.full = { t0: lo - pad, t1: hi + pad };
    this.state = {
      width: 800, view: { ...this.full }, lanes: this.lanes, timeline: T,
      names: (e) => T.labels.get(e) ?? data.layers.name[T.layer[e]] ?? "",
      metrics: data.metrics.map((metric) => ({ metric, max: metric.values.reduce((a, b) => Math.max(a, b), 0) })),
      highlight: new Set(), focus: -1, measure: null, theme: readTheme(host),
    };
    const head = el("div", "dld-r-section-title", "Inference timeline (median pass)");
    const legend = el("span", "dld-r-legend");
    legend.innerHTML = '<i class="c"></i> layer <i class="o"></i> overhead (reformat, copy, NoOp, H2D/D2H) · Ctrl+wheel: zoom · drag: measure · right-click: zoom menu';
    head.append(legend);
    const stage = el("div", "dld-r-tl-stage");
    stage.append(this.canvas, this.tip);
    this.scroll.append(this.spacer);
    this.root.append(head, stage, this.scroll);
    if (!T.count) this.root.append(el("div", "dld-r-empty", "This report has no timeline."));
    host.appendChild(this.root);
    this.schedule = ctx.listeners.frame(() => this.paint());
    // A 2D canvas holds colours, not CSS variables: repaint with the new theme's when JupyterLab switches.
    ctx.listeners.add(watchTheme(host, (theme) => {
      this.state.theme = theme;
      this.schedule();
    }));
    this.install(stage);
    this.paint();
  }

  get view(): View {
    return { ...this.state.view };
  }

  private install(stage: HTMLElement): void {
    const lis = this.ctx.listeners;
    const c = this.canvas;
    lis.dom(c, "wheel", (e: WheelEvent) => this.wheel(e), { passive: false });
    lis.dom(c, "mousedown", (e: MouseEvent) => {
      if (e.button !== 0 || this.xOf(e) < GUTTER) return;
      this.drag = { x: this.xOf(e), t: this.timeAt(this.xOf(e)) };
      e.preventDefault();
    });
    lis.dom(window, "mousemove", (e: MouseEvent) => {
      if (this.drag) {
        const t = this.timeAt(this.xOf(e));
        this.state.measure = Math.abs(this.xOf(e) - this.drag.x) >= 3 ? { t0: this.drag.t, t1: t } : this.state.measure;
        this.schedule();
      } else if (e.target === c) this.hover(e);
    });
    lis.dom(window, "mouseup", (e: MouseEvent) => {
      if (!this.drag) return;
      const moved = Math.abs(this.xOf(e) - this.drag.x) >= 3;
      this.drag = null;
      if (!moved) {
        const hit = this.eventAt(e);
        if (hit >= 0 && this.data.timeline.layer[hit] >= 0) this.onPick(this.data.timeline.layer[hit]);
      } else this.root.dataset.measure = String(Math.abs(this.state.measure!.t1 - this.state.measure!.t0));
    });
    lis.dom(c, "mouseleave", () => { this.tip.style.display = "none"; });
    lis.dom(c, "dblclick", (e: MouseEvent) => {
      const hit = this.eventAt(e);
      if (hit >= 0) this.zoomToEvent(hit);
    });
    // Our zoom menu replaces JupyterLab's context menu on the timeline.
    this.root.dataset.jpSuppressContextMenu = "";
    lis.dom(c, "contextmenu", (e: MouseEvent) => {
      e.preventDefault();
      e.stopPropagation();
      const m = this.state.measure;
      const sel = [...this.state.highlight];
      this.menu.open(e.clientX, e.clientY, [
        { label: "Zoom to fit", action: () => this.setView({ ...this.full }) },
        { label: "Zoom to selection (measured range)", disabled: !m, action: () => m && this.setView({ t0: Math.min(m.t0, m.t1), t1: Math.max(m.t0, m.t1) }) },
        { label: "Zoom to selected layers", disabled: !sel.length, action: () => this.zoomToLayers(sel) },
        { label: "Zoom in", action: () => this.zoom(0.5, (this.state.view.t0 + this.state.view.t1) / 2) },
        { label: "Zoom out", action: () => this.zoom(2, (this.state.view.t0 + this.state.view.t1) / 2) },
        { label: "Clear measurement", disabled: !m, action: () => { this.state.measure = null; this.schedule(); } },
      ]);
    });
    lis.dom(this.scroll, "scroll", () => {
      if (this.syncingScroll) { this.syncingScroll = false; return; }
      const span = this.state.view.t1 - this.state.view.t0;
      const total = this.spacer.offsetWidth || 1;
      const t0 = this.full.t0 + (this.scroll.scrollLeft / total) * (this.full.t1 - this.full.t0);
      this.state.view = { t0, t1: t0 + span };
      this.schedule();
    }, { passive: true });
    const resize = new ResizeObserver(() => this.schedule());
    resize.observe(stage);
    lis.add(() => resize.disconnect());
  }

  private xOf(e: MouseEvent): number {
    return e.clientX - this.canvas.getBoundingClientRect().left;
  }

  private timeAt(x: number): number {
    const v = this.state.view;
    return v.t0 + ((x - GUTTER) / Math.max(1, this.state.width - GUTTER)) * (v.t1 - v.t0);
  }

  private wheel(e: WheelEvent): void {
    const x = this.xOf(e);
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      this.zoom(Math.exp(e.deltaY * 0.0015), this.timeAt(Math.max(GUTTER, x)));
    } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      const d = (e.shiftKey ? e.deltaY : e.deltaX) / Math.max(1, this.state.width - GUTTER);
      const span = this.state.view.t1 - this.state.view.t0;
      this.setView({ t0: this.state.view.t0 + d * span, t1: this.state.view.t1 + d * span });
    } // a plain wheel scrolls the notebook
  }

  zoom(factor: number, around: number): void {
    const v = this.state.view;
    const fullSpan = this.full.t1 - this.full.t0;
    const span = Math.min(fullSpan, Math.max(fullSpan * 1e-7, (v.t1 - v.t0) * factor));
    const f = (around - v.t0) / (v.t1 - v.t0);
    this.setView({ t0: around - f * span, t1: around - f * span + span });
  }

  setView(v: View): void {
    const span = Math.max(v.t1 - v.t0, 1e-9);
    const fullSpan = this.full.t1 - this.full.t0;
    let t0 = v.t0;
    if (span <= fullSpan) t0 = Math.min(Math.max(t0, this.full.t0), this.full.t1 - span);
    this.state.view = { t0, t1: t0 + span };
    this.schedule();
  }

  private zoomToEvent(e: number): void {
    const T = this.data.timeline;
    const d = Math.max(T.duration[e], (this.full.t1 - this.full.t0) * 1e-6);
    this.setView({ t0: T.start[e] - d * 0.5, t1: T.start[e] + d * 1.5 });
  }

  /** Double-clicking a table row: fit the layer in view, marked. */
  zoomToLayer(layer: number): boolean {
    const e = this.byLayer.get(layer);
    this.state.focus = layer;
    this.root.dataset.focus = String(layer);
    if (e === undefined) {
      this.ctx.notice(`${this.data.layers.name[layer]} has no range on the timeline`, "warning");
      this.schedule();
      return false;
    }
    this.zoomToEvent(e);
    this.root.scrollIntoView?.({ block: "nearest" });
    return true;
  }

  zoomToLayers(layers: number[]): void {
    const T = this.data.timeline;
    let lo = Infinity;
    let hi = -Infinity;
    for (const l of layers) {
      const e = this.byLayer.get(l);
      if (e !== undefined) { lo = Math.min(lo, T.start[e]); hi = Math.max(hi, T.start[e] + T.duration[e]); }
    }
    if (Number.isFinite(lo)) this.setView({ t0: lo - (hi - lo) * 0.05, t1: hi + (hi - lo) * 0.05 });
  }

  highlight(layers: number[]): void {
    this.state.highlight = new Set(layers);
    this.schedule();
  }

  /** Outline the layer baselines in their colours (position -> colour). */
  setBaselines(colours: Map<number, string>): void {
    this.state.baselines = colours;
    this.schedule();
  }

  private eventAt(e: MouseEvent): number {
    const y = e.clientY - this.canvas.getBoundingClientRect().top - AXIS;
    const laneIndex = Math.floor(y / ROW);
    const lane = this.lanes[laneIndex];
    if (y < 0 || !lane) return -1;
    const T = this.data.timeline;
    const t = this.timeAt(this.xOf(e));
    const slack = 2 * ((this.state.view.t1 - this.state.view.t0) / Math.max(1, this.state.width - GUTTER)); // 2 px
    let best = -1;
    for (let k = lowerBound(lane.order, T.start, t - lane.maxDuration - slack); k < lane.order.length; k++) {
      const ev = lane.order[k];
      if (T.start[ev] > t + slack) break;
      if (T.start[ev] - slack <= t && t <= T.start[ev] + T.duration[ev] + slack) best = ev;
    }
    return best;
  }

  private hover(e: MouseEvent): void {
    const y = e.clientY - this.canvas.getBoundingClientRect().top;
    const metricY = y - AXIS - this.lanes.length * ROW;
    let textContent = "";
    if (metricY >= 0) {
      const m = this.state.metrics[Math.floor(metricY / METRIC_ROW)]?.metric;
      if (m && m.times.length) {
        const t = this.timeAt(this.xOf(e));
        let i = Math.min(m.times.length - 1, firstAtOrAfter(m.times, t));
        if (i > 0 && Math.abs(m.times[i - 1] - t) < Math.abs(m.times[i] - t)) i--;
        textContent = `${m.label}: ${m.values[i]} ${m.unit} at ${ms(m.times[i])}`;
      }
    } else {
      const hit = this.eventAt(e);
      if (hit >= 0) {
        const T = this.data.timeline;
        textContent = `${this.state.names(hit)}\nstart ${ms(T.start[hit])} · ${ms(T.duration[hit])}${T.overhead[hit] ? " · overhead" : ""}`;
      }
    }
    this.tip.textContent = textContent;
    this.tip.style.display = textContent ? "block" : "none";
    const x = this.xOf(e);
    this.tip.style.left = `${Math.min(x + 12, Math.max(0, this.state.width - 260))}px`;
    this.tip.style.top = `${y + 14}px`;
  }

  paint(): void {
    const width = this.canvas.parentElement?.clientWidth || 800;
    const height = heightOf(this.lanes.length, this.state.metrics.length);
    const dpr = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
    }
    this.state.width = width;
    const g = this.canvas.getContext("2d");
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.lastDrawn = draw(g, this.state);
    const v = this.state.view;
    const fullSpan = this.full.t1 - this.full.t0;
    const ratio = fullSpan / Math.max(1e-12, v.t1 - v.t0);
    const plot = Math.max(1, width - GUTTER);
    this.scroll.style.marginLeft = `${GUTTER}px`;
    this.spacer.style.width = `${Math.min(plot * ratio, 3e7)}px`;
    const left = ((v.t0 - this.full.t0) / fullSpan) * (this.spacer.offsetWidth || plot * ratio);
    if (Math.abs(this.scroll.scrollLeft - left) > 1) {
      this.syncingScroll = true;
      this.scroll.scrollLeft = left;
    }
    this.root.dataset.t0 = String(v.t0);
    this.root.dataset.t1 = String(v.t1);
    this.root.dataset.drawn = String(this.lastDrawn);
  }
}
