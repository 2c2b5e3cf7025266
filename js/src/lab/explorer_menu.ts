/**
 * The layer explorer's context menu: the TensorRT items of seed 000 ("right-clicking selected rows in the Layer
 * Explorer ... Set Layer Precision"; "Right click on an input layer in the canvas or Layer Explorer and select Set
 * TensorRT Optimization Profile"), and the Debugger's Add/Remove Breakpoint (seed 001 §4). The TensorRT items ask the
 * kernel to open the dialog on the bound designer's canvas, so the explorer and the canvas share one dialog, its
 * validation and its undo step; the breakpoint items go where the canvas menu's requests go (the Analysis panel).
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
  // The Debugger (seed 001 §4), as the canvas menu: adding launches the analysis if it is not running.
  item(`Add Breakpoint${count}`, () => run("add_breakpoint", { nodes: ids }));
  item(`Remove Breakpoint${count}`, () => run("remove_breakpoint", { nodes: ids }));
  const close = showPopup(menu, event.clientX, event.clientY, () => {
    if (closeOpen === close) closeOpen = null;
  });
  closeOpen = close;
  return close;
}
