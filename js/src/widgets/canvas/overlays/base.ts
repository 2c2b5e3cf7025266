/**
 * Canvas overlays, browser half (Python half: dld_jupyter/widgets/canvas/overlays/base.py, same names): what is drawn
 * over the graph without changing it (heat; divergence, diff, breakpoints and values are to come).
 *
 * Each overlay kind registers itself here (`OverlayKind`: a name, and how to make it for one rendered canvas); the
 * canvas's message table sends every `overlay` message to `Overlays.receive`, which routes it by name. Overlays are
 * made with the canvas's context (its first snapshot); a message that comes before is kept, the latest per overlay
 * (each carries its overlay's whole state: "set" or "clear"), and given to the overlay once it exists. The kernel
 * re-sends every active overlay's state after the snapshot a connecting view asks for (its hello).
 *
 * State Python knows: what each overlay shows (sent as "set"). State Python never sees: hover tooltips, drawn DOM.
 */
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";

/** One overlay on one rendered canvas. */
export interface CanvasOverlay {
  /** A kernel message for this overlay ("set", "clear"...) with its buffers. */
  receive(msg: OverlayMessage, buffers: DataView[]): void;
  /** The canvas's elements changed (snapshot, patch, an expanded group): draw again over what it shows. */
  refresh(): void;
  /** Items this overlay adds to a node's context menu (the analysis overlay's breakpoints), if any. */
  menuItems?(id: string): OverlayMenuItem[];
}

/** A context-menu item an overlay offers (menu.ts's Item). */
export interface OverlayMenuItem {
  label: string;
  run: () => void;
}

/** A kind of overlay: its name (the Python overlay's `name`) and how to make it for a canvas. */
export interface OverlayKind {
  name: string;
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

  /** Make every registered overlay for this canvas and hand each the message that came before it existed. */
  attach(ctx: CanvasContext): void {
    for (const kind of this.kinds) this.live.set(kind.name, kind.make(ctx));
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
    const overlay = this.live.get(msg.overlay);
    if (!overlay) {
      throw new Error(
        `overlay message for "${msg.overlay}", which this canvas has no overlay of (it has ${this.kinds.map((k) => k.name).join(", ") || "none"}):` +
          " the kernel's dld_jupyter and this page's bundle differ; reinstall dld_jupyter and reload the page",
      );
    }
    overlay.receive(msg, buffers);
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
