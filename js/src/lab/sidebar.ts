/**
 * The DL Designer left-sidebar panel. It shows kernel-held state of the active designer (palette and layer
 * explorer arrive with their issue); with no designer active it says so and how to open one.
 */
import { Widget } from "@lumino/widgets";

import { dldIcon } from "./icons";

export const SIDEBAR_ID = "dld-jupyter-sidebar";

export class DesignerSidebar extends Widget {
  private readonly status: HTMLDivElement;

  constructor() {
    super();
    this.id = SIDEBAR_ID;
    this.addClass("dld-Sidebar");
    this.title.icon = dldIcon;
    this.title.caption = "DL Designer: operator palette and layer explorer";

    const header = document.createElement("div");
    header.className = "dld-Sidebar-header";
    header.textContent = "DL Designer";
    this.status = document.createElement("div");
    this.status.className = "dld-Sidebar-status";
    this.node.append(header, this.status);
    this.showNoDesigner();
  }

  showNoDesigner(): void {
    this.status.textContent =
      "No designer is active. Open an .onnx file with “Open With → DL Designer”, or run " +
      "`import dld_jupyter as dld; dld.open(\"model.onnx\")` in a notebook.";
  }
}
