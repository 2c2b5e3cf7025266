/**
 * Help → ONNX Operator Documentation (and the command palette): opens the layer documentation browser
 * (operator_docs.ts) in the main area, one panel reused while it is open; `{name, domain}` opens it at an
 * operator, `version` at that version (a canvas's Go To Documentation panel asks for that through a DOM event). Its data comes from the server
 * extension's `/dld/operators` (dld_jupyter/lab/operator_docs_handler.py).
 */
import type { ILayoutRestorer, JupyterFrontEnd } from "@jupyterlab/application";
import { MainAreaWidget, WidgetTracker } from "@jupyterlab/apputils";
import { URLExt } from "@jupyterlab/coreutils";
import type { IMainMenu } from "@jupyterlab/mainmenu";
import { ServerConnection } from "@jupyterlab/services";

import { OPERATOR_DOCS_EVENT, OPERATOR_DOCS_MARK, OperatorDocsRequest } from "../common/operator_docs_event";
import { OperatorDocsPanel, OperatorSource } from "./operator_docs";

export const OPERATOR_DOCS_COMMAND = "dld:operator-docs";

/** Reads `/dld/operators` of this server; a refusal throws the server's message (an unknown operator: 404). */
export function serverSource(settings: ServerConnection.ISettings = ServerConnection.makeSettings()): OperatorSource {
  return async (query) => {
    const params = query ? `?${new URLSearchParams({ name: query.name, domain: query.domain })}` : "";
    const response = await ServerConnection.makeRequest(`${URLExt.join(settings.baseUrl, "dld", "operators")}${params}`, {}, settings);
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new Error((data as { message?: string } | null)?.message ?? `the server answered ${response.status}`);
    }
    return data;
  };
}

/** `restorer`: the tab comes back after a page reload, at the operator it showed. */
export function registerOperatorDocs(app: JupyterFrontEnd, mainMenu: IMainMenu | null, restorer: ILayoutRestorer | null): void {
  let open: MainAreaWidget<OperatorDocsPanel> | null = null;
  const tracker = new WidgetTracker<MainAreaWidget<OperatorDocsPanel>>({ namespace: "dld-operator-docs" });
  void restorer?.restore(tracker, {
    command: OPERATOR_DOCS_COMMAND,
    name: () => "operator-docs",
    args: (widget) => ({ ...(widget.content.current ?? {}) }),
  });
  app.commands.addCommand(OPERATOR_DOCS_COMMAND, {
    label: "ONNX Operator Documentation",
    caption: "Browse every ONNX and ONNX Runtime operator: description, inputs, outputs, attributes, type constraints, versions",
    execute: async (args) => {
      if (!open || open.isDisposed) {
        open = new MainAreaWidget({ content: new OperatorDocsPanel(serverSource()) });
        open.id = "dld-jupyter-operator-docs-tab";
        open.title.label = "ONNX Operator Documentation";
        open.title.closable = true;
        const widget = open;
        widget.content.onShown = () => void tracker.save(widget);
        app.shell.add(widget, "main");
        void tracker.add(widget);
      }
      app.shell.activateById(open.id);
      await open.content.ready;
      if (typeof args.name !== "string") return;
      const domain = typeof args.domain === "string" ? args.domain : "ai.onnx";
      await open.content.showOperator(args.name, domain, typeof args.version === "number" ? args.version : undefined);
    },
  });
  mainMenu?.helpMenu.addGroup([{ command: OPERATOR_DOCS_COMMAND }], 5);
  // a canvas's Go To Documentation panel opens the browser at its operator (common/operator_docs_event.ts)
  document.body.dataset[OPERATOR_DOCS_MARK] = "1";
  document.addEventListener(OPERATOR_DOCS_EVENT, (event) => {
    const { name, domain, version } = (event as CustomEvent<OperatorDocsRequest>).detail ?? {};
    if (typeof name === "string" && typeof domain === "string") {
      void app.commands.execute(OPERATOR_DOCS_COMMAND, { name, domain, ...(typeof version === "number" ? { version } : {}) });
    }
  });
}
