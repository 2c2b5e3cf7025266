/**
 * The user tools in the command palette: one "User Tool: <name>" entry per tool of the `userTools` setting, kept in
 * step with the Tools → User Tools submenu. The README promised them there; the palette listed only the fixed
 * commands, so a user who looks for a tool by name (Ctrl+Shift+C) did not find it.
 *
 * Python writes the same settings file (Custom Tools in a designer), which a running Lab does not watch: the
 * settings are read again each time the palette opens, so a tool created a moment ago is listed by the time the
 * user types.
 */
import type { ICommandPalette } from "@jupyterlab/apputils";
import type { CommandRegistry } from "@lumino/commands";
import type { ReadonlyJSONObject } from "@lumino/coreutils";
import type { IDisposable } from "@lumino/disposable";

import { ToolCommandIds, UserToolSetting } from "./tools_menu";

export const PALETTE_CATEGORY = "DL Designer";

/** JupyterLab's command that opens the palette (Ctrl+Shift+C, View → Activate Command Palette). */
export const OPEN_PALETTE_COMMAND = "apputils:activate-command-palette";

/** Palette items made from a setting's list (user tools, layouts): replaced as a whole whenever it is read. */
export class PaletteEntries {
  private items: IDisposable[] = [];

  constructor(private readonly palette: Pick<ICommandPalette, "addItem">) {}

  protected replace(entries: Array<{ command: string; args: ReadonlyJSONObject }>): void {
    for (const item of this.items) item.dispose();
    this.items = entries.map((entry) => this.palette.addItem({ ...entry, category: PALETTE_CATEGORY }));
  }
}

/** The palette items of the user tools. */
export class UserToolPaletteItems extends PaletteEntries {

  /** The run command with `{tool, palette: true}`, which tools_menu.ts labels "User Tool: <name>". */
  static entries(tools: UserToolSetting[]): Array<{ command: string; args: { tool: string; palette: boolean } }> {
    return tools.map((tool) => ({ command: ToolCommandIds.runUserTool, args: { tool: tool.name, palette: true } }));
  }

  update(tools: UserToolSetting[]): void {
    this.replace(UserToolPaletteItems.entries(tools));
  }
}

/** Calls `reload` each time the palette opens. */
export function reloadWhenPaletteOpens(commands: CommandRegistry, reload: () => void): void {
  commands.commandExecuted.connect((_, executed) => {
    if (executed.id === OPEN_PALETTE_COMMAND) reload();
  });
}
