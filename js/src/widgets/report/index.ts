/**
 * Report viewer anywidget (Python half: dld_jupyter/widgets/report/report_viewer.py).
 *
 * State Python knows (synced traits): payload + data (the report, see data.ts), height, heat, full_pass, filter,
 * selection, baseline, error. State Python never sees: timeline view and measurement, sort, scroll, hover, menus.
 * Messages to the kernel: open_nodes, request (the shared envelope: action "links", answered by a reply with the
 * same request number), js_error. From it: notice, reply.
 */
import type { AnyModel, RenderProps } from "@anywidget/types";
import "./report.css";
import { CompareView } from "./compare_view";
import { compareWithButton } from "./compare_with";
import { ViewContext } from "./context";
import { decode, Payload } from "./data";
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
    const view = compare ? new CompareView(content, ctx, reports, compare, menu) : new ReportView(content, ctx, reports[0], 0, menu, true);
    (root as unknown as { _dld: unknown })._dld = view; // for tests and the benchmark
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
