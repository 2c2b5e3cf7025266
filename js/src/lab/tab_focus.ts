/**
 * Where the focus goes when a designer tab is activated (its header clicked): into its view. The console's own
 * activation focuses its hidden prompt, which takes none, so JupyterLab's focus tracking never made the tab current
 * and the sidebar, Tools and commands (current_designer.ts) stayed on the designer shown before.
 */
import type { Widget } from "@lumino/widgets";

/** Give the focus to the view of `panel`, a designer tab just activated (document_tab.ts calls this). */
export function focusView(panel: Widget): void {
  if (panel.isDisposed || !panel.isVisible || panel.node.contains(document.activeElement)) return;
  const content = panel.node.querySelector(".jp-CodeConsole-content");
  // the canvas, else the view's first focusable part that shows (the console's hidden cells hold others)
  const shown = [...(content?.querySelectorAll<HTMLElement>(".dld-canvas, [tabindex]") ?? [])].filter(
    (node) => node.getClientRects().length > 0,
  );
  const view = shown.find((node) => node.classList.contains("dld-canvas")) ?? shown[0];
  if (view) view.focus({ preventScroll: true });
  else {
    panel.node.tabIndex = -1;
    panel.node.focus({ preventScroll: true });
  }
}
