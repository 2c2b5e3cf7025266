/**
 * A small popup menu (timeline zoom menu, the layer name's magnifier menu). One menu at a time per viewer;
 * it closes on Escape, on a click elsewhere, or at cleanup, removing its own listeners.
 */
import { el } from "./format";

export interface MenuItem { label: string; action?: () => void; header?: boolean; disabled?: boolean; title?: string }

export class Menu {
  private box: HTMLElement | null = null;
  private offOutside: (() => void) | null = null;

  constructor(private readonly overlay: HTMLElement, private readonly report: (error: unknown, where: string) => void) {}

  get element(): HTMLElement | null {
    return this.box;
  }

  open(clientX: number, clientY: number, items: MenuItem[]): HTMLElement {
    this.close();
    const box = el("div", "dld-r-menu");
    box.setAttribute("role", "menu");
    this.box = box;
    this.setItems(items);
    const host = this.overlay.getBoundingClientRect();
    box.style.left = `${clientX - host.left}px`;
    box.style.top = `${clientY - host.top}px`;
    this.overlay.appendChild(box);
    const outside = (e: Event) => {
      if (e.type === "keydown" && (e as KeyboardEvent).key !== "Escape") return;
      if (e.type === "mousedown" && box.contains(e.target as Node)) return;
      this.close();
    };
    // Registered after this click finishes, so the click that opened the menu does not close it.
    const timer = setTimeout(() => {
      document.addEventListener("mousedown", outside, true);
      document.addEventListener("keydown", outside, true);
    }, 0);
    this.offOutside = () => {
      clearTimeout(timer);
      document.removeEventListener("mousedown", outside, true);
      document.removeEventListener("keydown", outside, true);
    };
    return box;
  }

  setItems(items: MenuItem[]): void {
    const box = this.box;
    if (!box) return;
    box.replaceChildren(
      ...items.map((item) => {
        const row = el("div", item.header ? "dld-r-menu-header" : `dld-r-menu-item${item.disabled || !item.action ? " disabled" : ""}`, item.label);
        if (item.title) row.title = item.title;
        if (item.action && !item.disabled) {
          const action = item.action;
          row.setAttribute("role", "menuitem");
          row.onclick = () => {
            this.close();
            try {
              action();
            } catch (error) {
              this.report(error, `menu ${item.label}`);
            }
          };
        }
        return row;
      }),
    );
  }

  close(): void {
    this.offOutside?.();
    this.offOutside = null;
    this.box?.remove();
    this.box = null;
  }
}
