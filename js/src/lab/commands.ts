/** Commands are data: namespaced ids, each registered with label, caption, isEnabled and execute. */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { InputDialog } from "@jupyterlab/apputils";

import type { DesignerTarget } from "./current_designer";
import { dldIcon } from "./icons";
import { SidebarCommand } from "./messages";

export enum CommandIds {
  save = "dld:save",
  saveAs = "dld:save-as",
  undo = "dld:undo",
  redo = "dld:redo",
  quickAdd = "dld:quick-add",
  arrange = "dld:arrange",
  showGrid = "dld:show-grid",
  showConstants = "dld:show-constants",
  check = "dld:check",
  exportImage = "dld:export-image",
  exportEngine = "dld:export-engine",
  profile = "dld:profile",
  openFile = "dld:open-file",
  openReport = "dld:open-report",
  openEngine = "dld:open-engine",
  openEngineFile = "dld:open-engine-file",
  compareReports = "dld:compare-reports",
  newModel = "dld:new-model",
  startActivity = "dld:start-activity",
  compareWith = "dld:compare-with",
  openNodeData = "dld:open-node-data",
  checkAgainstOriginal = "dld:check-against-original",
  manageConnections = "dld:manage-connections",
  sweep = "dld:sweep",
  launchAnalysis = "dld:launch-analysis",
  stopAnalysis = "dld:stop-analysis",
  clearOverlays = "dld:clear-overlays",
  addAnalysisLayer = "dld:add-analysis-layer",
}

/** The palette's Analysis category (dld_jupyter/activities/analysis/layers.py KINDS). */
export const ANALYSIS_LAYER_KINDS = ["Mix", "Affine", "Noise", "Snapshot"];

/** Commands that act on the current designer, through its kernel. */
const DESIGNER_COMMANDS: Array<[CommandIds, SidebarCommand, string, string]> = [
  [CommandIds.save, "save", "Save ONNX Model", "Save the active designer's model (atomic)"],
  [CommandIds.undo, "undo", "Undo Model Edit", "Undo the last edit of the active designer"],
  [CommandIds.redo, "redo", "Redo Model Edit", "Redo the last undone edit of the active designer"],
  [CommandIds.arrange, "arrange", "Arrange Nodes", "Lay the graph out again (one undo step)"],
  [CommandIds.showGrid, "show_grid", "Show Grid", "Toggle the canvas background grid"],
  [CommandIds.showConstants, "show_constants", "Show All Constants", "Toggle the display of Constant nodes"],
  [CommandIds.check, "check", "Check Model", "Run the type checker on the active designer's model"],
  [CommandIds.profile, "profile", "Profile Model…", "Profile the active designer's model"],
  [CommandIds.sweep, "sweep", "Sweep…", "Sweep the active designer's saved model over batch sizes, precisions, providers and GPUs"],
  [CommandIds.exportEngine, "export_engine", "Export TensorRT Engine…", "Export the active designer's model to a TensorRT engine"],
  [CommandIds.checkAgainstOriginal, "check_against_original", "Check Against Original", "Run the edited model and its saved file on the same inputs: the first diverging node, drawn on the canvas"],
  [CommandIds.launchAnalysis, "launch_analysis", "Launch Analysis", "Run the active designer's model on real inputs, step through it and inspect its channels (read-only until Stop Analysis)"],
  [CommandIds.stopAnalysis, "stop_analysis", "Stop Analysis", "End the active designer's analysis and edit the model again"],
  [CommandIds.clearOverlays, "clear_overlays", "Clear Canvas Overlays", "Clear every overlay of the active designer's canvas (heat, divergence, changes, node data, analysis marks); each has its own × in the canvas's overlay strip"],
  [CommandIds.manageConnections, "manage_connections", "Remote Connections…", "Manage Remote Connections: saved SSH targets, Test connection, host keys"],
];

/** Save and Save As in a designer tab go through the tab (its dirty marker, title and file dialog). Every command
 * acts on the current designer (current_designer.ts). */
export function registerCommands(app: JupyterFrontEnd, designer: DesignerTarget): void {
  const currentTab = () => designer.tab();
  for (const [id, name, label, caption] of DESIGNER_COMMANDS) {
    app.commands.addCommand(id, {
      label,
      caption,
      icon: id === CommandIds.profile ? dldIcon : undefined,
      isEnabled: () => designer.isBound || (id === CommandIds.save && currentTab() !== null),
      execute: () => {
        const tab = id === CommandIds.save ? currentTab() : null;
        return tab ? tab.save() : designer.command(name);
      },
    });
  }
  app.commands.addCommand(CommandIds.saveAs, {
    label: "Save ONNX Model As…",
    caption: "Save the active designer's model to another path",
    isEnabled: () => designer.isBound || currentTab() !== null,
    execute: async () => {
      const tab = currentTab();
      if (tab) return tab.save(true);
      const result = await InputDialog.getText({ title: "Save ONNX model as", placeholder: "path/to/model.onnx" });
      if (result.button.accept && result.value) designer.command("save_as", { path: result.value });
    },
  });
  app.commands.addCommand(CommandIds.exportImage, {
    label: "Export Canvas as Image…",
    caption: "Export the active designer's canvas as PNG, JPEG or SVG (by the file extension)",
    isEnabled: () => designer.isBound,
    execute: async () => {
      const result = await InputDialog.getText({
        title: "Export canvas as image (.png, .jpg or .svg)",
        text: "canvas.png",
      });
      if (!result.button.accept || !result.value) return;
      const grid = await InputDialog.getText({
        title: "Grid in the image: a colour such as #d1d5db (empty: no grid)",
        text: "",
        placeholder: "#d1d5db",
      });
      if (!grid.button.accept) return;
      const colour = (grid.value ?? "").trim();
      designer.command("export_image", colour ? { path: result.value, grid: colour } : { path: result.value });
    },
  });
  app.commands.addCommand(CommandIds.addAnalysisLayer, {
    label: "Add Analysis Layer…",
    caption: "While analysing: a Mix, Affine, Noise or Snapshot after the selected node (a Mix: of the two selected), in the analysis copy only (never saved)",
    isEnabled: () => designer.isBound,
    execute: async () => {
      const result = await InputDialog.getItem({ title: "Analysis layer after the selected node", items: ANALYSIS_LAYER_KINDS, current: 0 });
      if (result.button.accept && result.value) designer.command("add_analysis_layer", { kind: result.value });
    },
  });
  app.commands.addCommand(CommandIds.compareWith, {
    label: "Compare Model With…",
    caption: "Diff another model (the older version) against the active designer's: changes coloured on its canvas",
    isEnabled: () => designer.isBound,
    execute: async () => {
      const result = await InputDialog.getText({ title: "Compare with (path of the older model)", placeholder: "path/to/model.onnx" });
      if (result.button.accept && result.value) designer.command("compare_with", { path: result.value });
    },
  });
  app.commands.addCommand(CommandIds.openNodeData, {
    label: "Open Node Data…",
    caption: "Colour the active designer's canvas by a Model Explorer node-data file (dld … --node-data writes them)",
    isEnabled: () => designer.isBound,
    execute: async () => {
      const result = await InputDialog.getText({ title: "Open node data (Model Explorer .json)", placeholder: "path/to/node_data.json" });
      if (result.button.accept && result.value) designer.command("show_node_data", { path: result.value });
    },
  });
  app.commands.addCommand(CommandIds.quickAdd, {
    label: "Quick Add Operator",
    caption: "Open the quick add list on the canvas under the mouse (Ctrl+Space)",
    execute: () => {
      const canvas = document.querySelector<HTMLElement>(".dld-canvas:hover") ?? document.querySelector(".dld-canvas");
      canvas?.dispatchEvent(new KeyboardEvent("keydown", { key: " ", code: "Space", ctrlKey: true, bubbles: true }));
    },
  });
}
