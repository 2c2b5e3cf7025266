/**
 * The layer explorer's context menu: the TensorRT items of seed 000 ("right-clicking selected rows in the Layer
 * Explorer ... Set Layer Precision"; "Right click on an input layer in the canvas or Layer Explorer and select Set
 * TensorRT Optimization Profile"). Each asks the kernel to open the dialog on the bound designer's canvas, so the
 * explorer and the canvas share one dialog, its validation and its undo step.
 */
import { SidebarCommand } from "./messages";
import { showPopup } from "../common/popup";

type Run = (name: SidebarCommand, args: Record<string, unknown>) => void;

let closeOpen: (() => void) | null = null; // one explorer menu at a time

/** Open the menu at the pointer, kept inside the window; it closes on Escape, click-away, scroll and blur. */
export function showExplorerMenu(ids: string[], event: MouseEvent, run: Run): () => void {
  closeOpen?.();
  const menu = document.createElement("div");
  menu.className = "dld-ExplorerMenu lm-Menu";
  menu.setAttribute("role", "menu");
  const item = (label: string, action: () => void) => {
    const row = document.createElement("div");
    row.className = "dld-ExplorerMenu-item";
    row.setAttribute("role", "menuitem");
    row.textContent = label;
    row.onclick = () => {
      close();
      action();
    };
    menu.append(row);
  };
  const count = ids.length === 1 ? "" : ` (${ids.length} layers)`;
  item(`Set Layer Precision…${count}`, () => run("trt_dialog", { dialog: "precision", nodes: ids }));
  item("Set TensorRT Optimization Profile…", () => run("trt_dialog", { dialog: "profile", nodes: [] }));
  const close = showPopup(menu, event.clientX, event.clientY, () => {
    if (closeOpen === close) closeOpen = null;
  });
  closeOpen = close;
  return close;
}
