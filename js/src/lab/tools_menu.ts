/**
 * The Tools menu (seed 000 "Batch Modifications", "User Tools"): Global Model Modifications (Convert Model to
 * FP16, Sanitize Graph, Convert Tensors), Custom Tools, and User Tools → <tool>. Each command runs the kernel
 * operation of the same id (dld_jupyter/frontdoor/tools.py) on the active designer through the sidebar's comm;
 * the kernel opens that dialog in the designer, where its progress, Cancel and status live.
 *
 * The User Tools submenu lists the `userTools` setting. Python writes the same settings file (Custom Tools in a
 * designer, `dld_jupyter.usertools.save_tools`), which a running Lab does not watch: the settings are read again
 * whenever the Tools menu opens, so a tool created a moment ago is in the submenu by the time it is hovered.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { IMainMenu } from "@jupyterlab/mainmenu";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { Menu } from "@lumino/widgets";

import type { DesignerTarget } from "./current_designer";
import { buildMenu, fillListing } from "./menu_builder";
import { SidebarCommand } from "./messages";

export enum ToolCommandIds {
  globalModifications = "dld:global-modifications",
  convertFp16 = "dld:convert-fp16",
  sanitize = "dld:sanitize",
  convertTensors = "dld:convert-tensors",
  customTools = "dld:custom-tools",
  runUserTool = "dld:run-user-tool",
}

export interface UserToolSetting {
  name: string;
  application: string;
  arguments?: string[];
  promptForOutput?: boolean;
  openOutput?: boolean;
}

const TOOL_COMMANDS: Array<[ToolCommandIds, SidebarCommand, string, string]> = [
  [
    ToolCommandIds.globalModifications,
    "global_modifications",
    "Global Model Modifications…",
    "Convert to FP16, sanitize the graph or convert tensors of the active designer's model",
  ],
  [
    ToolCommandIds.convertFp16,
    "convert_fp16",
    "Convert Model to FP16…",
    "Convert float32 weights and tensors to float16 (Polygraphy), with an output comparison",
  ],
  [
    ToolCommandIds.sanitize,
    "sanitize",
    "Sanitize Graph…",
    "Fold constants and remove unused nodes (Polygraphy sanitize), with an output comparison",
  ],
  [
    ToolCommandIds.convertTensors,
    "convert_tensors",
    "Convert Tensors…",
    "Convert chosen initializers and node attributes to one data type (one undo step)",
  ],
  [
    ToolCommandIds.customTools,
    "custom_tools",
    "Custom Tools…",
    "Create, edit and delete user tools ($Model, $Output in their arguments)",
  ],
];

/** The user tools of the settings, keeping only well-formed entries. */
export function userToolsOf(composite: Record<string, unknown>): UserToolSetting[] {
  const tools = composite["userTools"];
  if (!Array.isArray(tools)) return [];
  return tools.filter(
    (t): t is UserToolSetting =>
      typeof t === "object" && t !== null && typeof t.name === "string" && typeof t.application === "string",
  );
}

/** Fill the User Tools submenu: one entry per tool, or a pointer to Custom Tools when there is none. */
export function fillUserTools(menu: Menu, tools: UserToolSetting[]): void {
  fillListing(menu, ToolCommandIds.runUserTool, tools.map((tool) => ({ tool: tool.name })), ToolCommandIds.customTools);
}

/** Each tool acts on the current designer (current_designer.ts), the one in front. */
export function registerToolCommands(app: JupyterFrontEnd, sidebar: DesignerTarget): void {
  for (const [id, name, label, caption] of TOOL_COMMANDS) {
    app.commands.addCommand(id, { label, caption, isEnabled: () => sidebar.isBound, execute: () => sidebar.command(name) });
  }
  app.commands.addCommand(ToolCommandIds.runUserTool, {
    label: (args) =>
      typeof args.tool !== "string" ? "Run User Tool…" : args.palette === true ? `User Tool: ${args.tool}` : args.tool,
    caption: "Run this user tool on the active designer's model (saved first, or a saved copy of unsaved edits)",
    isEnabled: (args) => sidebar.isBound && typeof args.tool === "string",
    execute: (args) => sidebar.command("run_user_tool", { tool: args.tool }),
  });
}

export function registerToolsMenu(
  app: JupyterFrontEnd,
  mainMenu: IMainMenu,
  settingRegistry: ISettingRegistry | null,
  pluginId: string,
): Menu {
  const userTools = buildMenu(app.commands, { id: "dld-jupyter-user-tools-menu", label: "User Tools" });
  fillUserTools(userTools, []);
  const tools = buildMenu(app.commands, {
    id: "dld-jupyter-tools-menu",
    label: "Tools",
    entries: [
      ToolCommandIds.globalModifications, "-",
      ToolCommandIds.convertFp16, ToolCommandIds.sanitize, ToolCommandIds.convertTensors, "-",
      ToolCommandIds.customTools, userTools,
    ],
    opening: () => {
      settingRegistry?.reload(pluginId).catch((reason) => console.error("dld-jupyter: settings reload failed", reason));
    },
  });
  mainMenu.addMenu(tools, true, { rank: 950 });
  settingRegistry
    ?.load(pluginId)
    .then((settings) => {
      const fill = () => fillUserTools(userTools, userToolsOf(settings.composite as Record<string, unknown>));
      settings.changed.connect(fill);
      fill();
    })
    .catch((reason) => console.error("dld-jupyter: user tools settings failed to load", reason));
  return tools;
}
