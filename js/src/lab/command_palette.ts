/**
 * Every DL Designer command in JupyterLab's command palette, under one category. The commands existed (menus,
 * shortcuts, the sidebar) but none was in the palette, where JupyterLab users look first.
 * Commands that need a file-browser selection (open with) stay in their menus; the run-user-tool command is listed
 * once per user tool (user_tool_palette.ts), the apply-layout command once per saved layout (layouts.ts).
 */
import { ICommandPalette } from "@jupyterlab/apputils";

import { ChildCommandIds } from "./child_commands";
import { CommandIds } from "./commands";
import { LayoutCommandIds } from "./layouts";
import { OPERATOR_DOCS_COMMAND } from "./operator_docs_command";
import { ToolCommandIds } from "./tools_menu";
import { PALETTE_CATEGORY } from "./user_tool_palette";

export { PALETTE_CATEGORY };
const MENU_ONLY = new Set<string>([
  CommandIds.openFile, CommandIds.openReport, CommandIds.openEngine, CommandIds.compareReports, ToolCommandIds.runUserTool,
  LayoutCommandIds.apply, LayoutCommandIds.delete,
]);

/** The ids the palette lists, in a stable order. */
export function paletteCommands(): string[] {
  return [
    ...Object.values(CommandIds),
    ...Object.values(ToolCommandIds),
    ...Object.values(ChildCommandIds),
    ...Object.values(LayoutCommandIds),
    OPERATOR_DOCS_COMMAND,
  ].filter((id) => !MENU_ONLY.has(id));
}

/** Adds the registered ones (`has`: the app's command registry) to the palette. */
export function addToPalette(palette: ICommandPalette, has: (id: string) => boolean): void {
  for (const command of paletteCommands()) if (has(command)) palette.addItem({ command, category: PALETTE_CATEGORY });
}
