/** Wires the dld_jupyter JupyterLab plugins together; behaviour lives in the modules it imports. */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";

import { DesignerSidebar } from "./sidebar";

const sidebarPlugin: JupyterFrontEndPlugin<void> = {
  id: "dld-jupyter:sidebar",
  description: "DL Designer sidebar: operator palette and layer explorer of the active designer.",
  autoStart: true,
  optional: [ILabShell],
  activate: (app: JupyterFrontEnd) => {
    const sidebar = new DesignerSidebar();
    app.shell.add(sidebar, "left", { rank: 850 });
  },
};

export default [sidebarPlugin];
