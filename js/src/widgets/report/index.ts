/**
 * Report viewer anywidget (Python half: dld_jupyter/widgets/report/report_viewer.py).
 *
 * State Python knows (synced traits): payload + data (the report, see data.ts), height, heat, full_pass, filter,
 * selection, baseline, error, tab ("dashboard" | "layers"), dashboard_range and dashboard (dashboard/). State Python never sees: timeline view and measurement, sort, scroll, hover, menus.
 * Messages to the kernel: open_nodes, request (the shared envelope: action "links", answered by a reply with the
 * same request number), js_error. From it: notice, reply.
 */
import type { AnyModel, RenderProps } from "@anywidget/types";
import "./report.css";
import { CompareView } from "./compare_view";
import { compareWithButton } from "./compare_with";
import { ViewContext } from "./context";
import { decode, Payload } from "./data";
import { DashboardView } from "./dashboard";
import { TabData } from "./dashboard/data";
import { el } from "./format";
import { PendingRequests, Reply } from "../../common/envelope";
import { Listeners } from "../../common/listeners";
import { Menu } from "./menu";
import { ReportView } from "./report_view";

type KernelMessage =
  | { kind: "notice"; level?: "info" | "warning" | "error"; text?: string }
  | ({ kind: "reply" } & Reply);

export function render({ model, el: host }: RenderProps): () => void {
  const root = el("div", "dld-report");
  const notices = el("div", "dld-r-notices");
  const content = el("div", "dld-r-content");
  const overlay = el("div", "dld-r-overlay");
  root.append(notices, content, overlay);
  host.appendChild(root);
  const timers = new Set<number>();

  const notice = (textContent: string, level: "info" | "warning" | "error" = "info") => {
    const n = el("div", `dld-r-notice ${level}`, textContent);
    n.title = "Click to dismiss";
    n.onclick = () => n.remove();
    notices.append(n);
    if (level !== "error") {
      const t = window.setTimeout(() => { n.remove(); timers.delete(t); }, 8000);
      timers.add(t);
    }
  };
  const jsError = (error: unknown, where: string) => {
    const message = error instanceof Error ? `${error.message}` : String(error);
    notice(`report viewer: ${where}: ${message}`, "error");
    try {
      model.send({ kind: "js_error", where, message: error instanceof Error ? `${message}\n${error.stack ?? ""}` : message });
    } catch {
      /* the comm may be closed: the notice is shown anyway */
    }
  };
  const listeners = new Listeners(jsError);
  const pending = new PendingRequests<unknown>();
  let parts: Listeners | null = null;
  let menu: Menu | null = null;
  let dashboard: DashboardView | null = null;
  let showTab: ((name: "dashboard" | "layers") => void) | null = null;

  const build = () => {
    const started = performance.now();
    parts?.dispose();
    menu?.close();
    content.replaceChildren();
    parts = new Listeners(jsError);
    menu = new Menu(overlay, jsError);
    const ctx: ViewContext = {
      model: model as AnyModel, listeners: parts, overlay, notice,
      send: (message) => model.send(message),
      request: <D>(action: string, args: Record<string, unknown>) => {
        const [request, reply] = pending.open();
        model.send({ kind: "request", request, action, args });
        return reply as Promise<Reply<D>>;
      },
    };
    root.style.height = String(model.get("height") || "auto");
    const error = String(model.get("error") || "");
    if (error) content.append(el("div", "dld-r-error", error));
    const payload = model.get("payload") as Payload | undefined;
    if (!payload || !payload.reports || !payload.reports.length) {
      if (!error) content.append(el("div", "dld-r-empty", "No report."));
      root.dataset.ready = "1";
      return;
    }
    const { reports, compare } = decode(payload, model.get("data"));
    content.append(compareWithButton(ctx));
    const viewMenu = menu;
    const tabs = el("div", "dld-r-vtabs");
    const panes = { dashboard: el("div", "dld-r-pane"), layers: el("div", "dld-r-pane") };
    panes.dashboard.dataset.tab = "dashboard";
    panes.layers.dataset.tab = "layers";
    const buttons = { dashboard: el("button", "dld-r-vtab", "Dashboard"), layers: el("button", "dld-r-vtab", compare ? "Layers" : "Layers and timeline") };
    let layersView: unknown = null;
    const show = (name: "dashboard" | "layers") => {
      for (const key of ["dashboard", "layers"] as const) {
        panes[key].style.display = key === name ? "" : "none";
        buttons[key].classList.toggle("active", key === name);
      }
      root.dataset.tab = name;
      if (name === "layers" && layersView === null) { // built when first shown: the timeline measures its width
        layersView = compare ? new CompareView(panes.layers, ctx, reports, compare, viewMenu) : new ReportView(panes.layers, ctx, reports[0], 0, viewMenu, true);
        (root as unknown as { _dld: unknown })._dld = layersView; // for tests and the benchmark
      }
    };
    for (const key of ["dashboard", "layers"] as const) {
      buttons[key].type = "button";
      buttons[key].dataset.tab = key;
      ctx.listeners.dom(buttons[key], "click", () => { model.set("tab", key); model.save_changes(); show(key); });
      tabs.append(buttons[key]);
    }
    content.append(tabs, panes.dashboard, panes.layers);
    dashboard = new DashboardView(panes.dashboard, ctx, (model.get("dashboard") ?? {}) as TabData);
    (root as unknown as { _dashboard: unknown })._dashboard = dashboard; // for tests
    showTab = show;
    show(model.get("tab") === "dashboard" ? "dashboard" : "layers");
    root.dataset.ready = "1";
    root.dataset.layers = String(reports[0].layers.count);
    root.dataset.renderMs = (performance.now() - started).toFixed(1); // for the benchmark
  };

  listeners.model(model as AnyModel, "msg:custom", (msg: KernelMessage) => {
    if (msg.kind === "notice") notice(msg.text ?? "", msg.level ?? "info");
    else if (msg.kind === "reply") pending.settle(msg);
  });
  listeners.model(model as AnyModel, "change:payload", () => build());
  listeners.model(model as AnyModel, "change:error", () => build());
  listeners.model(model as AnyModel, "change:dashboard", () => dashboard?.update((model.get("dashboard") ?? {}) as TabData));
  listeners.model(model as AnyModel, "change:tab", () => showTab?.(model.get("tab") === "dashboard" ? "dashboard" : "layers"));
  listeners.model(model as AnyModel, "change:height", () => { root.style.height = String(model.get("height") || "auto"); });
  listeners.guard(build, "render")();

  return () => {
    parts?.dispose();
    menu?.close();
    listeners.dispose();
    timers.forEach((t) => clearTimeout(t));
    pending.clear();
    root.remove();
  };
}

export default { render };
