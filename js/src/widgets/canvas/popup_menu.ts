/**
 * The canvas's popup menu: a small HTML menu of items on the page near the pointer, one open at a time (the context
 * menu, menu.ts; a subgraph button's list, subgraph_button.ts).
 */
import type { CanvasContext } from "./context";
import { showPopup } from "../../common/popup";

export interface Item {
  label: string;
  run: () => void;
  disabled?: boolean;
}

let closeOpen: (() => void) | null = null;

/** Close the menu that is open, if any (one menu at a time on the page). */
export function closeMenu(): void {
  const close = closeOpen;
  closeOpen = null;
  close?.();
}

/** Show `items` at `p` (rendered canvas coordinates). The menu lives on the page, not inside the canvas (which
 * clips it): it stays whole near the canvas and window edges and closes on Escape, click-away, scroll and blur. */
export function popupMenu(ctx: CanvasContext, items: Item[], p: { x: number; y: number }, kind = "context"): HTMLDivElement {
  closeMenu();
  const el = document.createElement("div");
  el.className = "dld-menu";
  el.dataset.menu = kind;
  el.setAttribute("role", "menu");
  for (const item of items) {
    const row = document.createElement("div");
    row.className = "dld-menu-item" + (item.disabled ? " disabled" : "");
    row.textContent = item.label;
    // Element-owned handlers: they go away with the menu.
    row.onmousedown = (e) => e.stopPropagation();
    row.onclick = () => {
      closeMenu();
      if (!item.disabled) ctx.listeners.guard(item.run, `menu "${item.label}"`)();
    };
    el.appendChild(row);
  }
  const stage = ctx.stage.getBoundingClientRect();
  const close = showPopup(el, stage.left + p.x, stage.top + p.y, () => {
    if (closeOpen === close) closeOpen = null;
  });
  closeOpen = close;
  return el;
}
