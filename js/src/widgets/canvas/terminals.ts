/**
 * Overlay <canvas> over cytoscape that draws terminals, badges and the connect rubber band.
 * Terminals are not cytoscape elements (element count is cytoscape's cost): they are painted here, synced to
 * pan/zoom, only for nodes inside the viewport and only when zoomed in enough to see them.
 */
import type { Core } from "cytoscape";
import type { NodeData, TerminalData } from "../../common/protocol";
import { OPTIONAL_SCALE, TERMINAL_SIZE, terminalOffset } from "./geometry";
import type { GraphStore } from "./graph";
import { terminalColor } from "./colors";
import { drawOverview } from "./overview";
import type { HitIndex } from "./hit_index";

const MIN_ZOOM = 0.3; // level of detail: below this, terminals are too small to see or hit
const GESTURE_HIDE = 1500; // elements: above this, the overlay hides during pan/zoom gestures

export class TerminalOverlay {
  readonly canvas: HTMLCanvasElement;
  band: { x1: number; y1: number; x2: number; y2: number } | null = null; // model coordinates
  /** The grid of node boxes: only the nodes in view are visited (a 20k-node graph shows a few dozen). */
  hits: HitIndex | null = null;
  private frame = 0;
  private rest = 0;
  private moving = false;

  constructor(private readonly cy: Core, private readonly store: GraphStore, parent: HTMLElement) {
    this.canvas = document.createElement("canvas");
    this.canvas.className = "dld-canvas-overlay";
    parent.appendChild(this.canvas);
  }

  /**
   * While the user pans or zooms a big graph, its last picture moves (gesture_view.ts); the overlay steps aside
   * too (hidden) and comes back once the gesture has rested, so a gesture frame costs nothing here: it is hidden
   * once, at the gesture's first event, not cleared on each (a cleared canvas is still a changed layer that the
   * page commits and composites every frame; issue 42), and drawn again before it shows.
   */
  gesture = (): void => {
    if (this.store.nodes.size + this.store.edges.size < GESTURE_HIDE || this.store.loading) {
      this.schedule();
      return;
    }
    if (!this.moving) {
      this.moving = true;
      this.canvas.style.visibility = "hidden";
      if (this.frame) cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    clearTimeout(this.rest);
    this.rest = window.setTimeout(() => {
      this.moving = false;
      this.schedule();
    }, 150);
  };

  /** Redraw at the next animation frame (many cytoscape events coalesce into one paint). */
  schedule = (): void => {
    if (this.frame || this.moving) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  };

  dispose(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    clearTimeout(this.rest);
    this.canvas.remove();
  }

  draw(): void {
    const ctx = this.canvas.getContext("2d");
    if (!ctx) return;
    const width = this.cy.width();
    const height = this.cy.height();
    const ratio = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * ratio) || this.canvas.height !== Math.round(height * ratio)) {
      this.canvas.width = Math.round(width * ratio);
      this.canvas.height = Math.round(height * ratio);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.canvas.style.visibility = ""; // hidden during a big graph's gesture (gesture()): drawn for the new view now
    const zoom = this.cy.zoom();
    const pan = this.cy.pan();
    ctx.setTransform(zoom * ratio, 0, 0, zoom * ratio, pan.x * ratio, pan.y * ratio);
    if (this.store.loading) drawOverview(ctx, this.store, zoom);
    else if (zoom >= MIN_ZOOM) this.drawNodes(ctx);
    if (this.band) {
      ctx.strokeStyle = "#f59e0b";
      ctx.lineWidth = 2 / zoom;
      ctx.setLineDash([6 / zoom, 4 / zoom]);
      ctx.beginPath();
      ctx.moveTo(this.band.x1, this.band.y1);
      ctx.lineTo(this.band.x2, this.band.y2);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  private drawNodes(ctx: CanvasRenderingContext2D): void {
    const ext = this.cy.extent();
    const margin = 40;
    const nodes = this.hits ? this.hits.nodesIn(ext) : this.cy.nodes().toArray();
    nodes.forEach((el) => {
      const n = this.store.nodes.get(el.id());
      if (!n || n.kind === "group") return;
      const p = el.position();
      if (p.x < ext.x1 - n.width - margin || p.x > ext.x2 + n.width + margin) return;
      if (p.y < ext.y1 - n.height - margin || p.y > ext.y2 + n.height + margin) return;
      this.drawTerminals(ctx, n, p.x, p.y);
      this.drawBadges(ctx, n, p.x, p.y);
    });
  }

  private drawTerminals(ctx: CanvasRenderingContext2D, n: NodeData, cx: number, cy: number): void {
    const scheme = this.store.scheme;
    const draw = (t: TerminalData, side: "in" | "out", slot: number, count: number) => {
      const off = terminalOffset(n.width, n.height, side, slot, count);
      const x = cx + off.x;
      const y = cy + off.y;
      const s = TERMINAL_SIZE * (t.optional ? OPTIONAL_SCALE : 1);
      ctx.fillStyle = terminalColor(t.state, scheme);
      ctx.strokeStyle = "#1f2937";
      ctx.lineWidth = 0.8;
      ctx.beginPath();
      if (t.state === "constant") {
        roundRect(ctx, x - s * 1.4, y - s * 1.6, s * 2.8, s * 1.6, 2); // a miniature Constant node
      } else if (side === "in") {
        ctx.moveTo(x - s, y - s); // triangle pointing into the node
        ctx.lineTo(x + s, y - s);
        ctx.lineTo(x, y + s * 0.4);
        ctx.closePath();
      } else {
        ctx.arc(x, y, s * 0.8, 0, Math.PI * 2);
      }
      ctx.fill();
      ctx.stroke();
      if (t.variadic && t.state === "placeholder") {
        ctx.fillStyle = "#374151";
        ctx.font = `${s * 1.4}px sans-serif`;
        ctx.fillText("∞", x + s, y + (side === "in" ? -s : s * 2));
      }
    };
    n.inputs.forEach((t, i) => draw(t, "in", i, n.inputs.length));
    n.outputs.forEach((t, i) => draw(t, "out", i, n.outputs.length));
  }

  private drawBadges(ctx: CanvasRenderingContext2D, n: NodeData, cx: number, cy: number): void {
    if (n.diagnostic) {
      const x = cx + n.width / 2 - 4;
      const y = cy - n.height / 2 + 4;
      ctx.fillStyle = n.diagnostic === "error" ? "#dc2626" : n.diagnostic === "warning" ? "#f59e0b" : "#3b82f6";
      ctx.beginPath();
      ctx.arc(x, y, 8, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = "#fff";
      ctx.font = "bold 11px sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText("!", x, y + 0.5);
    }
    if (n.precision) {
      ctx.font = "9px sans-serif";
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
      const w = ctx.measureText(n.precision).width + 6;
      const x = cx - n.width / 2 + 3;
      const y = cy + n.height / 2 - 12;
      ctx.fillStyle = "#111827";
      ctx.fillRect(x, y - 5, w, 10);
      ctx.fillStyle = "#fff";
      ctx.fillText(n.precision, x + 3, y);
    }
    ctx.textAlign = "start";
    ctx.textBaseline = "alphabetic";
  }
}

export function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}
