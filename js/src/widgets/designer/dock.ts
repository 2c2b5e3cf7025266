/**
 * The dock splitter anywidget (Python half: dld_jupyter/widgets/designer/dock.py): a thin bar between the
 * designer's canvas and its side dock. Dragging it sets the dock's width (its height in a bottom dock) in the page
 * at once and, on release, in the `size` trait, so the kernel keeps it for the session's next designers; a
 * double-click asks the kernel to collapse the dock (`collapse` message). Its CSS lays the designer out.
 */
import type { AnyModel, RenderProps } from "@anywidget/types";
import "./dock.css";

interface DockModel {
  size: number;
  bottom: boolean;
}

const MIN = 160;

/** A panel opened in the dock (a Tools dialog, the Profile panel: a new child of one of the dock's boxes) is
 * scrolled into view: it opened above the editors, out of sight when the dock was scrolled down (issue 26). */
export function revealOpenedPanels(dock: HTMLElement): () => void {
  const observer = new MutationObserver((mutations) => {
    const opened = mutations.find((m) => m.target.parentElement === dock && m.addedNodes.length > 0);
    const panel = opened ? [...opened.addedNodes].find((n): n is HTMLElement => n instanceof HTMLElement) : undefined;
    if (!panel) return;
    const top = panel.getBoundingClientRect().top - dock.getBoundingClientRect().top + dock.scrollTop;
    dock.scrollTo({ top: Math.max(0, top - 4) });
  });
  observer.observe(dock, { childList: true, subtree: true });
  return () => observer.disconnect();
}

export function dockOf(el: HTMLElement): HTMLElement | null {
  const body = el.closest(".dld-designer-body");
  return body ? body.querySelector<HTMLElement>(":scope > .dld-dock") : null;
}

function render({ model, el }: RenderProps<DockModel>): () => void {
  const bar = document.createElement("div");
  bar.className = "dld-splitter";
  bar.title = "Drag to resize the panels; double-click to hide them";
  el.appendChild(bar);
  let start = 0;
  let startSize = 0;
  let dock: HTMLElement | null = null;
  const bottom = () => Boolean((model as AnyModel<DockModel>).get("bottom"));
  const sizeFor = (event: PointerEvent): number => {
    const body = dock?.parentElement;
    const room = body ? (bottom() ? 4000 : body.clientWidth * 0.5) : 4000; // as dock.css: max-width 50%
    const delta = bottom() ? start - event.clientY : start - event.clientX;
    return Math.round(Math.max(MIN, Math.min(room, startSize + delta)));
  };
  const move = (event: PointerEvent): void => {
    if (!dock) return;
    const size = sizeFor(event);
    if (bottom()) dock.style.height = `${size}px`;
    else dock.style.width = `${size}px`;
  };
  const up = (event: PointerEvent): void => {
    bar.classList.remove("dld-dragging");
    if (bar.hasPointerCapture(event.pointerId)) bar.releasePointerCapture(event.pointerId);
    bar.removeEventListener("pointermove", move);
    bar.removeEventListener("pointerup", up);
    bar.removeEventListener("pointercancel", up); // a drag the browser cancelled ends where it was
    if (!dock) return;
    model.set("size", sizeFor(event));
    model.save_changes();
    dock = null;
  };
  const down = (event: PointerEvent): void => {
    dock = dockOf(el);
    if (!dock || event.button !== 0) return;
    event.preventDefault();
    start = bottom() ? event.clientY : event.clientX;
    startSize = bottom() ? dock.getBoundingClientRect().height : dock.getBoundingClientRect().width;
    bar.classList.add("dld-dragging");
    bar.setPointerCapture(event.pointerId);
    bar.addEventListener("pointermove", move);
    bar.addEventListener("pointerup", up);
    bar.addEventListener("pointercancel", up);
  };
  const collapse = (): void => model.send({ kind: "collapse" });
  bar.addEventListener("pointerdown", down);
  bar.addEventListener("dblclick", collapse);
  let unreveal = (): void => undefined;
  let frame = 0;
  const attach = (tries: number): void => {
    const found = dockOf(el); // the splitter is in the page a frame or so after render: its dock beside it
    if (found) unreveal = revealOpenedPanels(found);
    else if (tries > 0) frame = requestAnimationFrame(() => attach(tries - 1));
  };
  frame = requestAnimationFrame(() => attach(60));
  return () => {
    cancelAnimationFrame(frame);
    unreveal();
    bar.removeEventListener("pointerdown", down);
    bar.removeEventListener("dblclick", collapse);
  };
}

export default { render };
