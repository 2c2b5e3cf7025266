/**
 * JupyterLab's side bars as a named layout keeps them (layouts.ts): for the left and the right bar, whether it is
 * folded, which panel it shows, and its width in px. Folding, showing and reading the panel go through ILabShell;
 * the widths through the shell's main split panel (left bar | main area | right bar), found by its id among the
 * shell's child widgets with Lumino's public API (`children()`, its SplitLayout's `moveHandle`). A shell without it (another
 * JupyterLab, Notebook 7) keeps the other parts and no widths.
 */
import type { Widget } from "@lumino/widgets";

import { SIDEBAR_ID } from "./messages";

export type Side = "left" | "right";

export interface SideBarState {
  collapsed: boolean;
  current: string | null;
  width?: number; // px, when it was shown
}

export type ShellState = Partial<Record<Side, SideBarState>>;

/** What is used of JupyterLab's shell: ILabShell's calls, and the bars' widths (`shellOf` adds them). */
export interface ShellLike {
  readonly leftCollapsed: boolean;
  readonly rightCollapsed: boolean;
  collapseLeft(): void;
  collapseRight(): void;
  expandLeft(): void;
  expandRight(): void;
  activateById(id: string): void;
  saveLayout(): {
    leftArea: { currentWidget: { id: string } | null } | null;
    rightArea: { currentWidget: { id: string } | null } | null;
  };
  /** The bar's width in px, null when folded or unknown. */
  widthOf(side: Side): number | null;
  setWidth(side: Side, px: number): void;
}

/** Reset Layout's shell: the DL Designer side bar open on the left, the right side bar folded. */
export const DEFAULT_SHELL: ShellState = {
  left: { collapsed: false, current: SIDEBAR_ID },
  right: { collapsed: true, current: null },
};

export const MIN_WIDTH = 50;
export const MAX_WIDTH = 4000;

export function sideBar(value: unknown): SideBarState | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { collapsed, current, width } = value as Record<string, unknown>;
  if (typeof collapsed !== "boolean" || !(current === null || typeof current === "string")) return undefined;
  const px = typeof width === "number" && width >= MIN_WIDTH && width <= MAX_WIDTH ? Math.round(width) : undefined;
  return px === undefined ? { collapsed, current } : { collapsed, current, width: px };
}

/** The side bars as they are now. */
export function captureShell(shell: ShellLike): ShellState {
  const layout = shell.saveLayout();
  const bar = (side: Side, collapsed: boolean, current: string | null): SideBarState => {
    const width = collapsed ? null : shell.widthOf(side);
    return width === null ? { collapsed, current } : { collapsed, current, width: Math.round(width) };
  };
  return {
    left: bar("left", shell.leftCollapsed, layout.leftArea?.currentWidget?.id ?? null),
    right: bar("right", shell.rightCollapsed, layout.rightArea?.currentWidget?.id ?? null),
  };
}

const nextFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/** Show each side bar's panel (activating it expands its bar), fold the bars the layout had folded, then (once
 * the shell has laid the shown bars out) give them their widths. */
export async function applyShell(shell: ShellLike, state: ShellState, frame: () => Promise<void> = nextFrame): Promise<void> {
  for (const side of ["left", "right"] as const) {
    const bar = state[side];
    if (!bar) continue;
    if (bar.current && !bar.collapsed) shell.activateById(bar.current);
    if (bar.collapsed) side === "left" ? shell.collapseLeft() : shell.collapseRight();
    else side === "left" ? shell.expandLeft() : shell.expandRight();
  }
  const widths = (["left", "right"] as const).filter((side) => !state[side]?.collapsed && state[side]?.width);
  if (!widths.length) return;
  await frame();
  for (const side of widths) shell.setWidth(side, state[side]?.width ?? 0);
}

interface SplitLike extends Widget {
  readonly widgets: readonly Widget[];
  readonly layout: Widget["layout"] & { moveHandle(index: number, position: number): void };
}

/** JupyterLab's main split panel (left bar | main | right bar), or null. */
function mainSplit(root: Widget): SplitLike | null {
  const stack: Widget[] = [root];
  while (stack.length) {
    const widget = stack.pop() as Widget;
    const layout = widget.layout as { moveHandle?: unknown } | null;
    if (widget.id === "jp-main-split-panel" && typeof layout?.moveHandle === "function" && "widgets" in widget) {
      return widget as SplitLike;
    }
    stack.push(...widget.children());
  }
  return null;
}

type LabShellLike = Omit<ShellLike, "widthOf" | "setWidth"> & Widget;

/** ILabShell with the bars' widths. */
export function shellOf(labShell: LabShellLike): ShellLike {
  const bar = (side: Side): HTMLElement | null => {
    const split = mainSplit(labShell);
    const widgets = split?.widgets ?? [];
    const widget = side === "left" ? widgets[0] : widgets[widgets.length - 1];
    return widgets.length === 3 && widget && !widget.isHidden ? widget.node : null;
  };
  return {
    get leftCollapsed() {
      return labShell.leftCollapsed;
    },
    get rightCollapsed() {
      return labShell.rightCollapsed;
    },
    collapseLeft: () => labShell.collapseLeft(),
    collapseRight: () => labShell.collapseRight(),
    expandLeft: () => labShell.expandLeft(),
    expandRight: () => labShell.expandRight(),
    activateById: (id) => labShell.activateById(id),
    saveLayout: () => labShell.saveLayout(),
    widthOf: (side) => {
      const node = bar(side);
      return node ? node.getBoundingClientRect().width : null;
    },
    setWidth: (side, px) => {
      const split = mainSplit(labShell);
      if (!split || !bar(side)) return;
      const width = Math.max(MIN_WIDTH, Math.min(px, MAX_WIDTH));
      if (side === "left") split.layout.moveHandle(0, width);
      else split.layout.moveHandle(1, split.node.getBoundingClientRect().width - width - handleWidth(split));
    },
  };
}

function handleWidth(split: SplitLike): number {
  const handle = split.node.querySelector<HTMLElement>(":scope > .lm-SplitPanel-handle");
  return handle ? handle.getBoundingClientRect().width : 0;
}
