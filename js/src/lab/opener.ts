/**
 * DL Designer documents in the main area: "Open With DL Designer" on .onnx files and "New ONNX Model".
 *
 * A designer document is a kernel-backed console panel whose prompt and code are hidden: the kernel opens the
 * file from disk (a 2 GB model is never downloaded into the browser) and the designer widget renders through
 * the console's own widget manager, exactly as in a notebook.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { Dialog, showDialog } from "@jupyterlab/apputils";
import { ConsolePanel } from "@jupyterlab/console";
import { PathExt } from "@jupyterlab/coreutils";
import { Widget } from "@lumino/widgets";

import { CommandIds } from "./commands";
import { dldIcon } from "./icons";

export const ONNX_FILE_TYPE = "dld-onnx";
export const REPORT_FILE_TYPE = "dld-report";
export const DESIGNER_DOCUMENT_CLASS = "dld-DesignerDocument";
const DEFAULT_OPSET = 21;

/** A Python string literal for any path (JSON escapes are valid Python escapes). */
function pyString(text: string): string {
  return JSON.stringify(text);
}

async function openDesignerPanel(app: JupyterFrontEnd, sessionPath: string, label: string, code: string) {
  const panel = (await app.commands.execute("console:create", {
    path: sessionPath,
    name: label,
    activate: true,
    insertMode: "split-right",
    // The default kernel of the server, started without asking (the kernel must have dld_jupyter installed).
    kernelPreference: { shouldStart: true, canStart: true, autoStartDefault: true },
  })) as ConsolePanel;
  panel.addClass(DESIGNER_DOCUMENT_CLASS);
  panel.title.label = label;
  panel.title.icon = dldIcon;
  await panel.sessionContext.ready;
  await panel.console.inject(code);
  app.shell.activateById(panel.id); // the sidebar follows the current panel
  return panel;
}

export function registerOpeners(app: JupyterFrontEnd, selectedPath: () => string | null): void {
  app.docRegistry.addFileType({
    name: ONNX_FILE_TYPE,
    displayName: "ONNX model",
    extensions: [".onnx"],
    mimeTypes: ["application/octet-stream"],
    fileFormat: "base64",
    contentType: "file",
    icon: dldIcon,
  });

  /** A command that opens the selected (or given) file in a designer panel with `dld.<call>(file name)`. */
  const openWith = (id: string, label: string, caption: string, call: "open" | "report") =>
    app.commands.addCommand(id, {
      label,
      caption,
      icon: dldIcon,
      execute: async (args) => {
        const path = (args.path as string | undefined) ?? selectedPath();
        if (!path) return;
        const name = PathExt.basename(path);
        const code = ["import dld_jupyter as dld", `_dld_view = dld.${call}(${pyString(name)})`, "_dld_view"];
        return openDesignerPanel(app, path, name, code.join("\n"));
      },
    });

  openWith(
    CommandIds.openFile,
    "Open With DL Designer",
    "Open this ONNX model in the DL Designer (the kernel reads it from disk)",
    "open",
  );

  app.docRegistry.addFileType({
    name: REPORT_FILE_TYPE,
    displayName: "DL Designer profiling report",
    extensions: [".dld-report.json"],
    pattern: ".*\\.dld-report\\.json$",
    mimeTypes: ["application/json"],
    fileFormat: "text",
    contentType: "file",
    icon: dldIcon,
  });

  openWith(
    CommandIds.openReport,
    "Open With DL Designer Report Viewer",
    "Show this profiling report (dld report, trtexec or ONNX Runtime profile JSON) in the report viewer",
    "report",
  );

  app.commands.addCommand(CommandIds.newModel, {
    label: "New ONNX Model…",
    caption: "Create an empty ONNX model in the DL Designer (choose the opset and contrib operators)",
    icon: dldIcon,
    execute: async (args) => {
      const choice = args.opset !== undefined ? { opset: Number(args.opset), contrib: Boolean(args.contrib) } : await askNewModel();
      if (!choice) return;
      const cwd = (args.cwd as string) ?? "";
      const code = [
        "import dld_jupyter as dld",
        `_dld_designer = dld.new(opset=${choice.opset}, contrib=${choice.contrib ? "True" : "False"})`,
        "_dld_designer",
      ].join("\n");
      return openDesignerPanel(app, PathExt.join(cwd, "untitled.onnx"), "untitled.onnx", code);
    },
  });
}

class NewModelBody extends Widget {
  readonly opset: HTMLInputElement;
  readonly contrib: HTMLInputElement;

  constructor() {
    super();
    this.addClass("dld-NewModel");
    this.opset = document.createElement("input");
    this.opset.type = "number";
    this.opset.min = "1";
    this.opset.value = String(DEFAULT_OPSET);
    this.contrib = document.createElement("input");
    this.contrib.type = "checkbox";
    const opsetLabel = document.createElement("label");
    opsetLabel.append("ONNX opset version ", this.opset);
    const contribLabel = document.createElement("label");
    contribLabel.append(this.contrib, " Import the ONNX Runtime contrib operator set (com.microsoft)");
    this.node.append(opsetLabel, document.createElement("br"), contribLabel);
  }

  getValue(): { opset: number; contrib: boolean } {
    return { opset: Number(this.opset.value), contrib: this.contrib.checked };
  }
}

async function askNewModel(): Promise<{ opset: number; contrib: boolean } | null> {
  const result = await showDialog({
    title: "New ONNX Model",
    body: new NewModelBody(),
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: "Create" })],
  });
  return result.button.accept && result.value ? result.value : null;
}
