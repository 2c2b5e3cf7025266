/** Wires the dld_jupyter JupyterLab plugins together; behaviour lives in the modules it imports. */
import { ILabShell, ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette, InputDialog } from "@jupyterlab/apputils";
import { IConsoleTracker } from "@jupyterlab/console";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { IDefaultFileBrowser } from "@jupyterlab/filebrowser";
import { ILauncher } from "@jupyterlab/launcher";
import { IMainMenu } from "@jupyterlab/mainmenu";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { IStateDB } from "@jupyterlab/statedb";

import { addChildMenuItems, registerChildCommands } from "./child_commands";
import { addToPalette } from "./command_palette";
import { CommandIds, registerCommands } from "./commands";
import { CurrentDesigner } from "./current_designer";
import { registerDefaultOpeners } from "./default_open";
import { registerOpeners } from "./opener";
import { DesignerSidebar } from "./sidebar";
import { DesignerTabs } from "./tab_manager";
import { registerCompare } from "./compare";
import { LayoutPaletteItems, layoutsMenu, layoutsOf, registerLayoutCommands } from "./layouts";
import type { LayoutSetting, LayoutStore } from "./layouts";
import { registerOperatorDocs } from "./operator_docs_command";
import { shellOf } from "./side_bars";
import { registerStartActivity } from "./start_activity";
import { registerToolCommands, registerToolsMenu, userToolsOf } from "./tools_menu";
import { reloadWhenPaletteOpens, UserToolPaletteItems } from "./user_tool_palette";

const PLUGIN_ID = "dld-jupyter:plugin";

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: "DL Designer: sidebar (palette, layer explorer), .onnx opener, commands and settings.",
  autoStart: true,
  optional: [ILabShell, IDefaultFileBrowser, ILauncher, ISettingRegistry, IStateDB, IDocumentManager, IConsoleTracker, IMainMenu, ICommandPalette, ILayoutRestorer],
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
    restorer: ILayoutRestorer | null,
  ) => {
    const sidebar = new DesignerSidebar();
    app.shell.add(sidebar, "left", { rank: 850 });
    const tabs = new DesignerTabs(app, state, docManager, consoles);
    sidebar.connection.commsOf = (kernel) => tabs.commsConnection(kernel);
    // The Runs section's Open buttons: a report in the report viewer and layer information as an engine graph, in a
    // tab beside the runs' tab on their kernel (so the Runs tab still lists them while it is in front), a model in
    // a designer tab, a sweep's folder in the file browser.
    const openers: Record<string, string> = { model: CommandIds.openFile, folder: "filebrowser:go-to-path" };
    sidebar.opener = (artifact, file, place) => {
      const kind = artifact === "report" ? "report" : artifact === "layer_info" ? "engine" : null;
      if (kind && place.kernel) {
        const record = { kind, file, kernel: place.kernel, kernelDir: place.kernelDir } as const;
        return tabs.open(record, "", place.ref ?? undefined, "split-right");
      }
      const command = kind === "report" ? CommandIds.openReport : kind ? CommandIds.openEngine : openers[artifact];
      return app.commands.execute(command ?? CommandIds.openFile, { path: file });
    };
    // The designer in front, which the sidebar shows and every command acts on (current_designer.ts).
    const current = new CurrentDesigner(app, labShell, sidebar, () => tabs.current());
    registerCommands(app, current);
    registerToolCommands(app, current);
    registerChildCommands(app, current);
    if (mainMenu) addChildMenuItems(registerToolsMenu(app, mainMenu, settingRegistry, PLUGIN_ID));
    // Named layouts (layouts.ts): View → DL Designer Layouts and the palette, following the `layouts` setting.
    let layouts: LayoutSetting[] = [];
    const layoutStore: LayoutStore = {
      layouts: () => layouts,
      reload: async () => void (await settingRegistry?.reload(PLUGIN_ID)),
      askName: async () => {
        const result = await InputDialog.getText({ title: "Save layout as", placeholder: "Wide editors" });
        return result.button.accept ? result.value : null;
      },
    };
    registerLayoutCommands(app.commands, current, labShell ? shellOf(labShell) : null, layoutStore);
    registerOperatorDocs(app, mainMenu, restorer);
    const layoutsView = mainMenu ? layoutsMenu(app.commands, layoutStore) : null;
    if (mainMenu && layoutsView) mainMenu.viewMenu.addGroup([{ type: "submenu", submenu: layoutsView.menu }], 40);
    const layoutItems = palette ? new LayoutPaletteItems(palette) : null;
    const selectedPath = () => {
      const item = fileBrowser?.selectedItems().next();
      return item && !item.done ? item.value.path : null;
    };
    registerOpeners(app, tabs, selectedPath);
    registerStartActivity(app, tabs, selectedPath, () => fileBrowser?.model.path ?? "");
    registerDefaultOpeners(app, tabs);
    registerCompare(app, tabs, docManager, () => (fileBrowser ? [...fileBrowser.selectedItems()].map((item) => item.path) : []));
    // The launcher's DL Designer section: start an activity on a model file, or create a model.
    launcher?.add({ command: CommandIds.startActivity, category: "DL Designer", rank: 0 });
    launcher?.add({ command: CommandIds.newModel, category: "DL Designer", rank: 1 });
    if (palette) addToPalette(palette, (id) => app.commands.hasCommand(id));
    const userToolItems = palette ? new UserToolPaletteItems(palette) : null;

    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then((settings) => {
          const apply = () => {
            sidebar.applySettings(settings.composite as Record<string, unknown>);
            tabs.keepKernel = settings.composite.keepKernelOnClose === true;
            // JupyterLab only: a Notebook 7 page opens a designer in a new browser tab, a page with no spare of its own
            tabs.spare.enabled = labShell !== null && settings.composite.warmKernel !== false;
            userToolItems?.update(userToolsOf(settings.composite as Record<string, unknown>));
            layouts = layoutsOf(settings.composite as Record<string, unknown>);
            layoutsView?.fill();
            layoutItems?.update(layouts);
          };
          settings.changed.connect(apply);
          apply();
          reloadWhenPaletteOpens(app.commands, () => void settingRegistry.reload(PLUGIN_ID).catch(console.error));
        })
        .catch((reason) => console.error("dld-jupyter: settings failed to load", reason));
    }
  },
};

export default [plugin];
