/**
 * Subgraph and local-function commands (seed 000 "Subgraphs", "Local Functions"): Model Local Functions, Local
 * Function Settings, Extract Model Subgraph…, Confirm Edits and Close of a subgraph / function document. Each runs
 * the kernel operation of the same id (dld_jupyter/frontdoor/children.py) on the active designer through the
 * sidebar's comm; the sidebar follows the document shown in a designer's document tabs, so Confirm and Local
 * Function Settings reach the subgraph or function being edited. The windows open inside the designer.
 */
import type { JupyterFrontEnd } from "@jupyterlab/application";
import type { Menu } from "@lumino/widgets";

import type { SidebarCommand } from "./messages";
import type { DesignerTarget } from "./current_designer";

export enum ChildCommandIds {
  localFunctions = "dld:local-functions",
  functionSettings = "dld:function-settings",
  extractModelSubgraph = "dld:extract-model-subgraph",
  confirmEdits = "dld:confirm-edits",
  closeChild = "dld:close-child",
}

export const CHILD_COMMANDS: Array<[ChildCommandIds, SidebarCommand, string, string]> = [
  [ChildCommandIds.localFunctions, "local_functions", "Model Local Functions", "List, open, extract, create and delete the model's local functions"],
  [ChildCommandIds.functionSettings, "function_settings", "Local Function Settings", "Parameters of the local function being edited (name, type, default)"],
  [ChildCommandIds.extractModelSubgraph, "extract_model_subgraph", "Extract Model Subgraph…", "Export a Loop/If/Scan subgraph to a standalone model"],
  [ChildCommandIds.confirmEdits, "confirm_edits", "Confirm Subgraph / Local Function Edits", "Write the subgraph or function being edited back into its parent (one undo step)"],
  [ChildCommandIds.closeChild, "close_child", "Close Subgraph / Local Function Document", "Stop editing the subgraph or function (unconfirmed edits are dropped)"],
];

export function registerChildCommands(app: JupyterFrontEnd, sidebar: DesignerTarget): void {
  for (const [id, name, label, caption] of CHILD_COMMANDS) {
    app.commands.addCommand(id, { label, caption, isEnabled: () => sidebar.isBound, execute: () => sidebar.command(name) });
  }
}

/** The Tools menu entries (after the batch modifications). */
export function addChildMenuItems(tools: Menu): void {
  tools.addItem({ type: "separator" });
  tools.addItem({ command: ChildCommandIds.localFunctions });
  tools.addItem({ command: ChildCommandIds.functionSettings });
  tools.addItem({ command: ChildCommandIds.extractModelSubgraph });
}
