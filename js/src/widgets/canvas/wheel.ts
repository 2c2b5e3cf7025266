/**
 * Wheel zoom at a normal rate. Cytoscape takes a mouse's 100-pixel wheel ticks for an "inaccurate device" and
 * divides them down: 30 ticks gave about 2×. Here a wheel tick (100 px) zooms by WHEEL_STEP and a touchpad's small
 * deltas zoom in proportion, around the pointer, as maps and Netron do. Pinch gestures (ctrl+wheel) use the same rule.
 *
 * Cytoscape's own handler also marks the renderer as wheel-zooming until the wheel has rested, and only then does a
 * big graph move its last picture (textureOnViewport, gesture_view.ts) instead of drawing every element per event;
 * ours, which replaces that handler, marks it the same way (issue 42: every zoom frame at 5,000 nodes was a full
 * redraw, 30 ms here). The full drawing comes back WHEEL_REST ms after the last wheel event, as cytoscape's does.
 */
import type { Core } from "cytoscape";
import type { Listeners } from "./listeners";

export const WHEEL_STEP = 1.2; // zoom factor of one mouse-wheel tick
export const WHEEL_REST = 150; // ms without a wheel event before the full drawing comes back (cytoscape's delay)

/** The part of cytoscape's canvas renderer its wheel handler uses (not in its typings). */
interface WheelRenderer {
  data: { wheelZooming?: boolean; wheelTimeout?: number };
  redrawHint(layer: "eles", dirty: boolean): void;
  redraw(): void;
}

/** Mark `cy`'s renderer as wheel-zooming until the wheel has rested, then redraw everything, as cytoscape does. */
export function wheelGesture(cy: Core): void {
  const r = (cy as unknown as { renderer(): WheelRenderer }).renderer();
  r.data.wheelZooming = true;
  clearTimeout(r.data.wheelTimeout);
  r.data.wheelTimeout = window.setTimeout(() => {
    r.data.wheelZooming = false;
    r.redrawHint("eles", true);
    r.redraw();
  }, WHEEL_REST);
}

/** deltaY in pixels whatever the event's unit (lines in Firefox on Linux/Windows, pages rarely). */
export function wheelPixels(event: Pick<WheelEvent, "deltaY" | "deltaMode">): number {
  return event.deltaMode === 1 ? event.deltaY * 33 : event.deltaMode === 2 ? event.deltaY * 800 : event.deltaY;
}

/** The zoom after one wheel event (clamped to the canvas's limits). */
export function wheelZoom(zoom: number, pixels: number, min: number, max: number): number {
  const next = zoom * Math.pow(WHEEL_STEP, -pixels / 100);
  return Math.min(max, Math.max(min, next));
}

export function installWheel(cy: Core, root: HTMLElement, stage: HTMLElement, listeners: Listeners): void {
  // Capture on the root: runs before cytoscape's own wheel binding on the stage, which it then never sees.
  listeners.dom(root, "wheel", (event: WheelEvent) => {
    if (!stage.contains(event.target as Node) || !cy.userZoomingEnabled()) return;
    event.preventDefault();
    event.stopPropagation();
    const rect = stage.getBoundingClientRect();
    const level = wheelZoom(cy.zoom(), wheelPixels(event), cy.minZoom(), cy.maxZoom());
    wheelGesture(cy);
    cy.zoom({ level, renderedPosition: { x: event.clientX - rect.left, y: event.clientY - rect.top } });
  }, { capture: true, passive: false });
}
