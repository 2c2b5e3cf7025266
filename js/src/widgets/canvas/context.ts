/** What the parts of one rendered canvas share. UI-only state (pointer, clipboard flag) lives here, never in Python. */
import type { AnyModel } from "@anywidget/types";
import type { Core } from "cytoscape";
import type { Channel } from "./channel";
import type { GraphStore } from "./graph";
import type { Listeners } from "./listeners";
import type { TerminalOverlay } from "./terminals";
import type { Toasts } from "./toasts";

export interface CanvasContext {
  model: AnyModel;
  cy: Core;
  root: HTMLElement; // the widget's element (focusable, receives keys)
  stage: HTMLElement; // cytoscape's container
  store: GraphStore;
  overlay: TerminalOverlay;
  channel: Channel;
  toasts: Toasts;
  listeners: Listeners;
  pointer: { x: number; y: number }; // last pointer position, model coordinates
  ops: Array<{ name: string; domain: string; category: string; summary: string }>;
  overlays: OverlayHost; // drawn over the graph (heat...: overlays/), routed by name from the `overlay` message
}

/** What the canvas's parts ask of its overlays (overlays/base.ts's Overlays, which overlays reach the canvas through:
 * the overlays import this context, so the context names only this much of them). */
export interface OverlayHost {
  /** The canvas's elements changed: every overlay draws again over what it shows. */
  refresh(): void;
  /** Every overlay's context-menu items for node `id` (the analysis's breakpoints). */
  menuItems(id: string): Array<{ label: string; run: () => void }>;
}

export function selectedNodeIds(ctx: CanvasContext): string[] {
  return ctx.cy.nodes(":selected").map((n) => n.id());
}

export function selectedEdgeIds(ctx: CanvasContext): string[] {
  return ctx.cy.edges(":selected").map((e) => e.id());
}

/** Model coordinates of a mouse event on the stage. */
export function modelPoint(ctx: CanvasContext, event: MouseEvent): { x: number; y: number } {
  const rect = ctx.stage.getBoundingClientRect();
  const zoom = ctx.cy.zoom();
  const pan = ctx.cy.pan();
  return { x: (event.clientX - rect.left - pan.x) / zoom, y: (event.clientY - rect.top - pan.y) / zoom };
}
