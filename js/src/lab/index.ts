/** Wires the dld_jupyter JupyterLab plugins together; behaviour lives in the modules it imports. */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette } from "@jupyterlab/apputils";
import { IConsoleTracker } from "@jupyterlab/console";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { IDefaultFileBrowser } from "@jupyterlab/filebrowser";
import { ILauncher } from "@jupyterlab/launcher";
import { IMainMenu } from "@jupyterlab/mainmenu";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { IStateDB } from "@jupyterlab/statedb";
import { Widget } from "@lumino/widgets";

import { addChildMenuItems, registerChildCommands } from "./child_commands";
import { addToPalette } from "./command_palette";
import { CommandIds, registerCommands } from "./commands";
import { PanelLike } from "./connection";
import { registerDefaultOpeners } from "./default_open";
import { registerOpeners } from "./opener";
import { DesignerSidebar } from "./sidebar";
import { DesignerTabs } from "./tab_manager";
import { registerCompare } from "./compare";
import { registerToolCommands, registerToolsMenu } from "./tools_menu";

const PLUGIN_ID = "dld-jupyter:plugin";

function asPanel(widget: Widget | null): PanelLike | null {
  return widget && "sessionContext" in widget ? (widget as PanelLike) : null;
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: "DL Designer: sidebar (palette, layer explorer), .onnx opener, commands and settings.",
  autoStart: true,
  optional: [ILabShell, IDefaultFileBrowser, ILauncher, ISettingRegistry, IStateDB, IDocumentManager, IConsoleTracker, IMainMenu, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    labShell: ILabShell | null,
    fileBrowser: IDefaultFileBrowser | null,
    launcher: ILauncher | null,
    settingRegistry: ISettingRegistry | null,
    state: IStateDB | null,
    docManager: IDocumentManager | null,
    consoles: IConsoleTracker | null,
    mainMenu: IMainMenu | null,
    palette: ICommandPalette | null,
  ) => {
    const sidebar = new DesignerSidebar();
    app.shell.add(sidebar, "left", { rank: 850 });
    const tabs = new DesignerTabs(app, state, docManager, consoles);
    registerCommands(app, sidebar, () => tabs.current());
    registerToolCommands(app, sidebar);
    registerChildCommands(app, sidebar);
    if (mainMenu) addChildMenuItems(registerToolsMenu(app, mainMenu, settingRegistry, PLUGIN_ID));
    registerOpeners(app, tabs, () => {
      const item = fileBrowser?.selectedItems().next();
      return item && !item.done ? item.value.path : null;
    });
    registerDefaultOpeners(app, tabs);
    registerCompare(app, tabs, docManager, () => (fileBrowser ? [...fileBrowser.selectedItems()].map((item) => item.path) : []));
    launcher?.add({ command: CommandIds.newModel, category: "Other", rank: 1 });
    if (palette) addToPalette(palette, (id) => app.commands.hasCommand(id));

    // Follow the panel the user works in (Lab's shell and Notebook 7's both signal currentChanged).
    const shell = (labShell ?? app.shell) as unknown as {
      currentWidget: Widget | null;
      currentChanged?: { connect(fn: () => void): void };
    };
    const follow = () => sidebar.follow(asPanel(shell.currentWidget));
    shell.currentChanged?.connect(follow);
    app.restored.then(follow).catch(console.error);

    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then((settings) => {
          const apply = () => {
            sidebar.applySettings(settings.composite as Record<string, unknown>);
            tabs.keepKernel = settings.composite.keepKernelOnClose === true;
          };
          settings.changed.connect(apply);
          apply();
        })
        .catch((reason) => console.error("dld-jupyter: settings failed to load", reason));
    }
  },
};

export default [plugin];
