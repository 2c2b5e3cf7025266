/** Keyboard shortcuts of a focused canvas (seed "Editing a Model"): Delete, Ctrl+C/X/V/Z/Y/S, Ctrl+Space, F. */
import type { CanvasContext } from "./context";
import { actions } from "./actions";
import type { QuickAdd } from "./quickadd";

/** How long after a click on the canvas its focus is kept from the enclosing cell (Lumino activates it late when
 * the machine is busy). */
const FOCUS_GUARD_MS = 2000;

export function installKeys(ctx: CanvasContext, quickAdd: QuickAdd): void {
  ctx.listeners.dom(ctx.root, "keydown", (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return; // typing in a popup
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    let handled = true;
    if (key === "delete" || key === "backspace") actions.delete(ctx);
    else if (mod && (key === " " || event.code === "Space")) quickAdd.open();
    else if (mod && key === "z" && event.shiftKey) actions.redo(ctx);
    else if (mod && key === "z") actions.undo(ctx);
    else if (mod && key === "y") actions.redo(ctx);
    else if (mod && key === "s") actions.save(ctx);
    else if (mod && key === "c") actions.copy(ctx);
    else if (mod && key === "x") actions.cut(ctx);
    else if (mod && key === "v") actions.paste(ctx);
    else if (mod && key === "a") ctx.cy.nodes().select();
    else if (!mod && key === "f") actions.fit(ctx);
    else handled = false;
    if (handled) {
      // Keep JupyterLab from also acting (Ctrl+S saves the notebook, Delete deletes cells in command mode).
      event.preventDefault();
      event.stopPropagation();
    }
  });
  // Clicking the canvas focuses it so the shortcuts reach it. The notebook focuses its own node on the same
  // click (to activate the cell), and on a busy machine Lumino runs that activation a frame or more later: take
  // the focus back once now and once after it, so Ctrl+C copies nodes rather than the cell. Only focus that went
  // to an enclosing element (the cell, the notebook, the page) is taken back: never a field the user clicked.
  // Later than 150 ms too (the last fresh-clone CI: Ctrl+S right after a click saved the notebook, whose cell took
  // the focus after both timers): for a moment after a click on the canvas, focus that moves to an enclosing
  // element is taken back as it moves; a press anywhere else ends that moment.
  const timers: number[] = [];
  let guardUntil = 0;
  const reclaim = () => {
    const active = document.activeElement;
    const enclosing = !active || active === document.body || active.contains(ctx.root);
    if (enclosing && !ctx.root.contains(active)) ctx.root.focus({ preventScroll: true });
  };
  const focus = () => {
    guardUntil = performance.now() + FOCUS_GUARD_MS;
    timers.splice(0).forEach((t) => clearTimeout(t));
    timers.push(window.setTimeout(reclaim, 0), window.setTimeout(reclaim, 150));
  };
  ctx.listeners.dom(ctx.stage, "mousedown", focus, { capture: true });
  ctx.listeners.dom(ctx.stage, "mouseup", focus, { capture: true });
  ctx.listeners.dom(document, "pointerdown", (event: PointerEvent) => {
    if (!ctx.stage.contains(event.target as Node)) guardUntil = 0;
  }, { capture: true });
  ctx.listeners.dom(document, "focusin", () => {
    if (performance.now() < guardUntil) reclaim();
  });
  ctx.listeners.add(() => timers.forEach((t) => clearTimeout(t)));
}
