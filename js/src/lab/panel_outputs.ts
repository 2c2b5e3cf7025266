/**
 * The widget outputs of a notebook or console panel, where the sidebar (connection.ts) looks for designers: each
 * output's widget model id (the kernel finds its designer by it) and the DOM node it is drawn in (a click there
 * makes it the preferred designer), and a fingerprint of what the panel's kernel has run.
 */
import { Widget } from "@lumino/widgets";

const WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json";

/** The outputs of a panel as (model id, DOM node) pairs: notebook cells or console cells alike. */
export interface OutputLike {
  modelId: string;
  node: HTMLElement;
}

interface CellLike {
  model: {
    outputs?: { length: number; get(i: number): { data: Record<string, unknown> } };
    executionCount?: number | null;
  };
  outputArea?: { widgets: ReadonlyArray<Widget> };
}

function cellsOf(panel: Widget): CellLike[] {
  const anyPanel = panel as unknown as {
    content?: { widgets?: ReadonlyArray<unknown> };
    console?: { cells?: Iterable<unknown> };
  };
  // A ConsolePanel is also a MainAreaWidget whose `content` holds the console: look for the console first.
  if (anyPanel.console?.cells) return [...anyPanel.console.cells] as CellLike[];
  if (anyPanel.content?.widgets) return [...anyPanel.content.widgets] as CellLike[];
  return [];
}

export function widgetOutputs(panel: Widget): OutputLike[] {
  const found: OutputLike[] = [];
  for (const cell of cellsOf(panel)) {
    const outputs = cell.model?.outputs;
    if (!outputs) continue;
    for (let i = 0; i < outputs.length; i++) {
      const view = outputs.get(i).data[WIDGET_VIEW_MIME] as { model_id?: string } | undefined;
      const node = cell.outputArea?.widgets[i]?.node;
      if (view?.model_id && node) found.push({ modelId: view.model_id, node });
    }
  }
  return found;
}

/** A fingerprint of what the panel's kernel has run (its cells' execution counts): it changes when the user runs a
 * cell, never for our own silent requests, so a kernel without dld_jupyter is asked again only after a cell ran. */
export function executionKey(panel: Widget): string {
  return String(cellsOf(panel).reduce((sum, cell) => sum + (cell.model?.executionCount ?? 0), 0));
}
