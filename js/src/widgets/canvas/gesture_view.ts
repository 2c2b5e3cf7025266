/**
 * A big graph's pan and zoom move the picture last drawn instead of drawing a new one each frame (issue 42: pan/zoom
 * frames at 5,000 expanded nodes, p95 19.4 ms on a quiet machine with cytoscape's texture).
 *
 * With textureOnViewport cytoscape draws, in a gesture's first frame, the view without its links into a texture
 * twice the canvas's size, then in every frame clears its node layer and draws that texture at the new pan and zoom.
 * Where the page composites in software (headless Chromium, machines without a usable GPU) each such frame is also
 * a changed full-size canvas that the page commits and composites, with its other layers and our overlay beside it:
 * in Chromium's trace of the benchmark's gestures the main thread spent ~2 ms a frame committing canvases. Here those
 * frames set a CSS transform on the node layer instead: the last picture, links and labels included, moves and
 * scales on the compositor, the other two layers (the rubber band and the press disk; the dragged elements) are
 * hidden, and nothing is drawn while the gesture lasts. When it rests (the press released, the wheel still for
 * WHEEL_REST ms) the transform goes and cytoscape's full redraw, which follows every texture frame, comes in the same
 * frame. Outside the old picture the stage's background shows, where the texture had a grey tint: both are filled
 * once the gesture rests. A gesture that drags nodes (a wheel turned meanwhile) keeps cytoscape's texture, as do
 * renders to another context (cy.png, exports) and graphs drawn without a texture (textureOnViewport off).
 */
import type { Core } from "cytoscape";

type RenderOptions = { forcedContext?: unknown } | undefined;
type Viewport = { zoom: number; x: number; y: number };
interface GestureRenderer {
  render(options?: RenderOptions): void;
  textureOnViewport: boolean;
  pinching?: boolean;
  swipePanning?: boolean;
  hoverData: { dragging?: boolean; draggingEles?: boolean };
  textureDrawLastFrame?: boolean;
  prevViewport?: { zoom: number; pan: { x: number; y: number } };
  NODE: number;
  DRAG: number;
  SELECT_BOX: number;
  data: { wheelZooming?: boolean; canvases: HTMLCanvasElement[]; canvasNeedsRedraw: boolean[] };
}

/** The CSS transform (origin at the top left) that shows a picture drawn at `drawn` as the view `now`: a model
 * point is drawn at model × zoom + pan. */
export function gestureTransform(drawn: Viewport, now: Viewport): string {
  const scale = now.zoom / drawn.zoom;
  return `translate(${now.x - drawn.x * scale}px, ${now.y - drawn.y * scale}px) scale(${scale})`;
}

export class GestureView {
  /** Gesture frames shown by moving the picture so far (tests: the path was taken). */
  moved = 0;
  private readonly r: GestureRenderer;
  private readonly baseRender: GestureRenderer["render"];
  /** The viewport the node layer was last drawn at (null: not drawn yet). */
  private drawn: Viewport | null = null;
  private moving = false;

  constructor(private readonly cy: Core) {
    this.r = (cy as unknown as { renderer(): GestureRenderer }).renderer();
    this.baseRender = this.r.render;
    this.r.render = (options) => this.render(options);
  }

  restore(): void {
    this.r.render = this.baseRender;
    this.settle();
  }

  private viewport(): Viewport {
    const pan = this.cy.pan();
    return { zoom: this.cy.zoom(), x: pan.x, y: pan.y };
  }

  /** cytoscape's own test for a texture frame (its render() draws the texture when this holds). */
  private gesturing(): boolean {
    const r = this.r;
    return r.textureOnViewport && Boolean(r.pinching || r.hoverData.dragging || r.swipePanning || r.data.wheelZooming);
  }

  private render(options: RenderOptions): void {
    const r = this.r;
    if (options?.forcedContext) {
      this.baseRender.call(r, options);
      return;
    }
    const needDraw = r.data.canvasNeedsRedraw;
    if (this.drawn && this.gesturing() && !r.hoverData.draggingEles) {
      this.move(this.drawn);
      return;
    }
    this.settle();
    const draws = needDraw[r.NODE] || Boolean(r.textureDrawLastFrame) || this.gesturing();
    this.baseRender.call(r, options);
    if (draws) this.drawn = this.viewport();
  }

  /** One gesture frame: the node layer's picture, drawn at `drawn`, shown at the current view. */
  private move(drawn: Viewport): void {
    const r = this.r;
    const layers = r.data.canvases;
    if (!this.moving) {
      this.moving = true;
      layers[r.NODE].style.transformOrigin = "0 0";
      layers.forEach((layer, i) => {
        if (i !== r.NODE) layer.style.visibility = "hidden";
      });
    }
    const now = this.viewport();
    layers[r.NODE].style.transform = gestureTransform(drawn, now);
    this.moved++;
    // What cytoscape's texture frame leaves: its layers count as drawn, and textureDrawLastFrame makes the next
    // plain render (the gesture rested) draw the node layer for the view of then.
    const needDraw = r.data.canvasNeedsRedraw;
    r.textureDrawLastFrame = true;
    needDraw[r.NODE] = false;
    needDraw[r.DRAG] = false;
    r.prevViewport = { zoom: now.zoom, pan: { x: now.x, y: now.y } };
    this.cy.emit("render");
  }

  /** The layers back in place and shown, all three to be drawn by the render that follows, in the same frame. */
  private settle(): void {
    if (!this.moving) return;
    this.moving = false;
    const r = this.r;
    r.data.canvases.forEach((layer) => {
      layer.style.transform = "";
      layer.style.visibility = "";
    });
    r.data.canvasNeedsRedraw[r.DRAG] = true;
    r.data.canvasNeedsRedraw[r.SELECT_BOX] = true;
  }
}
