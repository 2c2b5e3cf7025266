/**
 * The layer explorer's context menu: the TensorRT items of seed 000 ("right-clicking selected rows in the Layer
 * Explorer ... Set Layer Precision"; "Right click on an input layer in the canvas or Layer Explorer and select Set
 * TensorRT Optimization Profile"). Each asks the kernel to open the dialog on the bound designer's canvas, so the
 * explorer and the canvas share one dialog, its validation and its undo step.
 */
import { SidebarCommand } from "./messages";

type Run = (name: SidebarCommand, args: Record<string, unknown>) => void;

export function showExplorerMenu(host: HTMLElement, ids: string[], event: MouseEvent, run: Run): void {
  host.querySelector(".dld-ExplorerMenu")?.remove();
  const menu = document.createElement("div");
  menu.className = "dld-ExplorerMenu lm-Menu";
  const close = () => {
    menu.remove();
    document.removeEventListener("mousedown", outside, true);
  };
  const outside = (e: MouseEvent) => {
    if (!menu.contains(e.target as Node)) close();
  };
  const item = (label: string, action: () => void) => {
    const row = document.createElement("div");
    row.className = "dld-ExplorerMenu-item";
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
  const box = host.getBoundingClientRect();
  menu.style.left = `${event.clientX - box.left}px`;
  menu.style.top = `${event.clientY - box.top}px`;
  host.append(menu);
  document.addEventListener("mousedown", outside, true);
}
