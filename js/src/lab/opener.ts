/**
 * DL Designer documents in the main area: "Open With DL Designer" on .onnx files, the report viewer on reports,
 * and "New ONNX Model". Each opens a designer tab (document_tab.ts, tab_manager.ts): the kernel reads the file from
 * disk (a 2 GB model is never downloaded into the browser) and the widget renders as in a notebook.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { Dialog, showDialog } from "@jupyterlab/apputils";
import { FileDialog } from "@jupyterlab/filebrowser";
import { Widget } from "@lumino/widgets";

import { CommandIds } from "./commands";
import { dldIcon } from "./icons";
import { DesignerTabs } from "./tab_manager";

export { DESIGNER_DOCUMENT_CLASS } from "./document_tab";
export const ONNX_FILE_TYPE = "dld-onnx";
export const REPORT_FILE_TYPE = "dld-report";
export const ENGINE_FILE_TYPE = "dld-engine";
const DEFAULT_OPSET = 21;

export function registerOpeners(app: JupyterFrontEnd, tabs: DesignerTabs, selectedPath: () => string | null): void {
  app.docRegistry.addFileType({
    name: ONNX_FILE_TYPE,
    displayName: "ONNX model",
    extensions: [".onnx"],
    mimeTypes: ["application/octet-stream"],
    fileFormat: "base64",
    contentType: "file",
    icon: dldIcon,
  });

  /** A command that opens the selected (or given) file in a designer tab (`dld.open` or `dld.report`). */
  const openWith = (id: string, label: string, caption: string, kind: "open" | "report" | "engine") =>
    app.commands.addCommand(id, {
      label,
      caption,
      icon: dldIcon,
      execute: async (args) => {
        const path = (args.path as string | undefined) ?? selectedPath();
        if (!path) return;
        return tabs.open({ kind, file: path });
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

  // A TensorRT engine's layer information (`dld export-engine --metadata` writes .trt.json; trtexec's
  // --exportLayerInfo any .json, named X.graph.json by `dld profile --backend tensorrt`, TREx and common scripts):
  // a read-only engine graph on the designer canvas (dld.open_engine).
  app.docRegistry.addFileType({
    name: ENGINE_FILE_TYPE,
    displayName: "TensorRT engine layer information",
    extensions: [".trt.json", ".graph.json"],
    pattern: ".*\\.(trt|graph)\\.json$",
    mimeTypes: ["application/json"],
    fileFormat: "text",
    contentType: "file",
    icon: dldIcon,
  });

  openWith(
    CommandIds.openEngine,
    "Open With DL Designer (Engine Graph)",
    "Show this TensorRT engine's layer information (.trt.json, .graph.json of trtexec --exportLayerInfo) as a read-only graph",
    "engine",
  );

  // File → Open TensorRT Engine Graph…: JupyterLab's own file dialog, JSON files only.
  app.commands.addCommand(CommandIds.openEngineFile, {
    label: "Open TensorRT Engine Graph…",
    caption: "Choose a TensorRT engine's layer information (.trt.json, trtexec --exportLayerInfo) to show read-only",
    icon: dldIcon,
    execute: async () => {
      if (!tabs.docManager) return;
      const chosen = await FileDialog.getOpenFiles({
        manager: tabs.docManager,
        title: "Open TensorRT Engine Graph",
        filter: (item) => (item.type === "directory" || item.name.endsWith(".json") ? {} : null),
      });
      const file = chosen.button.accept ? chosen.value?.find((item) => item.type !== "directory") : undefined;
      if (file) return tabs.open({ kind: "engine", file: file.path });
    },
  });

  app.commands.addCommand(CommandIds.newModel, {
    label: "New ONNX Model…",
    caption: "Create an empty ONNX model in the DL Designer (choose the opset and contrib operators)",
    icon: dldIcon,
    execute: async (args) => {
      const choice = args.opset !== undefined ? { opset: Number(args.opset), contrib: Boolean(args.contrib) } : await askNewModel();
      if (!choice) return;
      const cwd = (args.cwd as string) ?? "";
      return tabs.open({ kind: "new", file: "", opset: choice.opset, contrib: choice.contrib }, cwd);
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
