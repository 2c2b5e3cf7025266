/**
 * The bar between a report's layer table and its charts (seed 000: the type graphs and the layer table are separated
 * by a resizable splitter): drag it (or focus it and use the arrow keys) to give the table more or fewer rows;
 * double-click puts the table back to its first height. The charts below follow in the page's flow.
 */
import { el } from "./format";
import { Listeners } from "../../common/listeners";

const MIN = 120;
const STEP = 22; // one row per arrow key

export function splitter(host: HTMLElement, target: HTMLElement, listeners: Listeners, resized: () => void): HTMLElement {
  const bar = el("div", "dld-r-splitter");
  bar.tabIndex = 0;
  bar.setAttribute("role", "separator");
  bar.setAttribute("aria-orientation", "horizontal");
  bar.title = "Drag to resize the layer table and the charts (double-click: back to the first size)";
  const first = target.getBoundingClientRect().height || parseFloat(target.style.height) || 320;
  const set = (height: number) => {
    const h = Math.max(MIN, Math.round(height));
    target.style.height = `${h}px`;
    bar.dataset.height = String(h);
    resized();
  };
  let start = 0;
  let from = 0;
  const move = (e: PointerEvent) => set(from + e.clientY - start);
  const up = (e: PointerEvent) => {
    bar.releasePointerCapture?.(e.pointerId);
    bar.removeEventListener("pointermove", move);
    bar.classList.remove("dragging");
  };
  listeners.dom(bar, "pointerdown", (e: PointerEvent) => {
    e.preventDefault();
    start = e.clientY;
    from = target.getBoundingClientRect().height;
    bar.setPointerCapture?.(e.pointerId);
    bar.classList.add("dragging");
    bar.addEventListener("pointermove", move);
    bar.addEventListener("pointerup", up, { once: true });
  });
  listeners.dom(bar, "dblclick", () => set(first));
  listeners.dom(bar, "keydown", (e: KeyboardEvent) => {
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    set(target.getBoundingClientRect().height + (e.key === "ArrowDown" ? STEP : -STEP));
  });
  host.append(bar);
  return bar;
}
