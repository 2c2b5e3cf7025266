/**
 * "Start Activity" (seed 000: profile or export a model "from the Start Activity dialog without opening [it]
 * beforehand"): a launcher card in the DL Designer section, a command palette entry and the file browser's context
 * menu on an .onnx file open the dialog in a tab of its own, backed by its own kernel like a designer tab
 * (document_tab.ts). The dialog itself lives in the kernel (dld.start_activity, widgets/runs/start_activity.py): the
 * model path, the activity and that activity's own form, target chooser, progress and Cancel; its report opens in a
 * tab beside it, and its Browse… asks the tab for JupyterLab's file dialog.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";

import { activityTab } from "./activity_tab";
import { CommandIds } from "./commands";
import { dldIcon } from "./icons";
import { DesignerTabs } from "./tab_manager";

/** `selectedPath`: the file browser's selected item; `browserFolder`: the folder it shows. */
export function registerStartActivity(
  app: JupyterFrontEnd,
  tabs: DesignerTabs,
  selectedPath: () => string | null,
  browserFolder: () => string,
): void {
  app.commands.addCommand(CommandIds.startActivity, {
    label: "Start Activity…",
    caption: "Profile, export (TensorRT engine) or sweep an ONNX model file without opening it in the designer",
    icon: dldIcon,
    execute: (args) => {
      const { record, folder } = activityTab(args, selectedPath(), browserFolder());
      return tabs.open(record, folder);
    },
  });
}
