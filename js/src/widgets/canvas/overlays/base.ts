/**
 * Canvas overlays, browser half (Python half: dld_jupyter/widgets/canvas/overlays/base.py, same names): what is drawn
 * over the graph without changing it (heat, divergence, diff, node data, the analysis's Network Overview).
 *
 * Each overlay kind registers itself here (`OverlayKind`: a name, and how to make it for one rendered canvas); the
 * canvas's message table sends every `overlay` message to `Overlays.receive`, which routes it by name. Overlays are
 * made with the canvas's context (its first snapshot); a message that comes before is kept, the latest per overlay
 * (each carries its overlay's whole state: "set" or "clear"), and given to the overlay once it exists. The kernel
 * re-sends every active overlay's state after the snapshot a connecting view asks for (its hello).
 *
 * The overlay strip (strip.ts, Python: overlays/strip.py) is the manager: its "set" lists the active overlays, which
 * are visible and which one owns the node colours. An overlay is drawn when it is visible and, if it colours nodes
 * (its kind's `paints`), owns them; otherwise it keeps its state and draws nothing (`present(false)`). Every
 * overlay message hides the tooltips: a run or step moves the analysis on, the strip changes what is drawn.
 *
 * State Python knows: what each overlay shows (sent as "set"), the strip. State Python never sees: hover tooltips,
 * drawn DOM.
 */
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import { STRIP, Strip, StripSetMessage, drawnOf } from "./strip";

/** One overlay on one rendered canvas. */
export interface CanvasOverlay {
  /** A kernel message for this overlay ("set", "clear"...) with its buffers. */
  receive(msg: OverlayMessage, buffers: DataView[]): void;
  /** The canvas's elements changed (snapshot, patch, an expanded group): draw again over what it shows. */
  refresh(): void;
  /** Items this overlay adds to a node's context menu (the analysis overlay's breakpoints), if any. */
  menuItems?(id: string): OverlayMenuItem[];
  /** Drawn or not (the strip: hidden, or another overlay owns the node colours); not drawn, it keeps its state. */
  present?(drawn: boolean): void;
  /** Hide its tooltip, if it has one. */
  hideTip?(): void;
}

/** A context-menu item an overlay offers (menu.ts's Item). */
export interface OverlayMenuItem {
  label: string;
  run: () => void;
}

/** A kind of overlay: its name (the Python overlay's `name`), whether it colours nodes, how to make it. */
export interface OverlayKind {
  name: string;
  /** It colours nodes (heat, diff, divergence, node data): drawn only while it owns the node colours. */
  paints?: boolean;
  make(ctx: CanvasContext): CanvasOverlay;
}

const KINDS = new Map<string, OverlayKind>();

/** Register an overlay kind (each overlay module does, once; overlays/index.ts imports them all). */
export function registerOverlay(kind: OverlayKind): OverlayKind {
  const known = KINDS.get(kind.name);
  if (known && known !== kind) throw new Error(`two overlay kinds are named "${kind.name}": rename one of them`);
  KINDS.set(kind.name, kind);
  return kind;
}

export function overlayKinds(): string[] {
  return [...KINDS.keys()];
}

/** The overlays of one rendered canvas, by name. */
export class Overlays {
  constructor(private readonly kinds: readonly OverlayKind[]) {}

  private readonly live = new Map<string, CanvasOverlay>();
  private readonly early = new Map<string, [OverlayMessage, DataView[]]>();
  private ready = false;
  private ctx: CanvasContext | null = null;
  private strip: Strip | null = null; // made at the first strip message
  private stripState: StripSetMessage | null = null;
  private readonly drawnNow = new Map<string, boolean>();

  /** Make every registered overlay for this canvas and hand each the message that came before it existed. */
  attach(ctx: CanvasContext): void {
    for (const kind of this.kinds) this.live.set(kind.name, kind.make(ctx));
    this.ctx = ctx;
    this.ready = true;
    const early = [...this.early.values()];
    this.early.clear();
    for (const [msg, buffers] of early) this.receive(msg, buffers);
  }

  receive(msg: OverlayMessage, buffers: DataView[]): void {
    if (!this.ready) {
      this.early.set(msg.overlay, [msg, buffers]);
      return;
    }
    this.hideTips(); // the overlays changed (a new state, a step of the analysis, the strip): no stale tooltip
    if (msg.overlay === STRIP) {
      this.stripState = msg as StripSetMessage;
      if (this.ctx) (this.strip ??= new Strip(this.ctx)).draw(this.stripState);
      this.present();
      return;
    }
    const overlay = this.live.get(msg.overlay);
    if (!overlay) {
      throw new Error(
        `overlay message for "${msg.overlay}", which this canvas has no overlay of (it has ${this.kinds.map((k) => k.name).join(", ") || "none"}):` +
          " the kernel's dld_jupyter and this page's bundle differ; reinstall dld_jupyter and reload the page",
      );
    }
    // Its drawn state first: a "set" of an overlay that does not own the colours keeps its state, draws nothing.
    this.presentOne(msg.overlay, overlay);
    overlay.receive(msg, buffers);
  }

  /** Which overlays are drawn now (the strip's state): those that stop first, so they never unpaint the new owner. */
  private present(): void {
    const changes = [...this.live].map(([name, overlay]) => [name, overlay, this.drawn(name)] as const);
    for (const [name, overlay, drawn] of changes) if (!drawn) this.presentOne(name, overlay, drawn);
    for (const [name, overlay, drawn] of changes) if (drawn) this.presentOne(name, overlay, drawn);
  }

  private presentOne(name: string, overlay: CanvasOverlay, drawn = this.drawn(name)): void {
    if (this.drawnNow.get(name) === drawn) return;
    this.drawnNow.set(name, drawn);
    overlay.present?.(drawn);
  }

  private drawn(name: string): boolean {
    return drawnOf(this.stripState, name, Boolean(this.kinds.find((k) => k.name === name)?.paints));
  }

  hideTips(): void {
    for (const overlay of this.live.values()) overlay.hideTip?.();
  }

  get(name: string): CanvasOverlay | undefined {
    return this.live.get(name);
  }

  refresh(): void {
    for (const overlay of this.live.values()) overlay.refresh();
  }

  /** Every live overlay's context-menu items for node `id`. */
  menuItems(id: string): OverlayMenuItem[] {
    return [...this.live.values()].flatMap((overlay) => overlay.menuItems?.(id) ?? []);
  }
}
