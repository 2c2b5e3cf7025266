/**
 * The TensorRT overlay (seed 000, "Specifying Layer Precisions to TensorRT", "Dynamic Shapes and TensorRT"): what
 * the canvas shows and offers for a TensorRT build, entered through the overlays' registry like the others. Its
 * parts, in this room: the precision badge's quick menu (badge.ts; terminals.ts paints the badge), the Set Layer
 * Precision dialog (precision.ts) and the optimization-profile editor (profile.ts), both on the canvas's dialog
 * (../../dialog.ts). Kernel side: widgets/canvas/trt_intents.py (the edits), designer.open_trt_dialog (the layer
 * explorer's menu asks for a dialog with this overlay's "dialog" message).
 *
 * It draws no colours and keeps no state the kernel re-sends: it is never in the overlay strip.
 */
import type { OverlayMessage } from "../../../../common/protocol";
import type { CanvasContext } from "../../context";
import type { CanvasOverlay, OverlayKind, OverlayMenuItem } from "../base";
import { installPrecisionBadges } from "./badge";
import { openPrecisionDialog } from "./precision";
import { openProfileDialog } from "./profile";
import "./tensorrt.css";

export const TENSORRT = "tensorrt";

/** The kernel asks for a dialog (the layer explorer's TensorRT menu, through the bound designer's canvas). */
export interface TrtDialogMessage extends OverlayMessage {
  overlay: typeof TENSORRT;
  action: "dialog";
  dialog: "precision" | "profile";
  nodes: string[];
}

class TensorRtOverlay implements CanvasOverlay {
  constructor(private readonly ctx: CanvasContext) {
    // a read-only canvas (an engine's graph) offers no edit: its badges open nothing
    if (!this.readOnly) installPrecisionBadges(ctx);
  }

  private get readOnly(): boolean {
    return this.ctx.root.dataset.readOnly === "1";
  }

  receive(msg: OverlayMessage): void {
    if (msg.action !== "dialog") return;
    const { dialog, nodes } = msg as TrtDialogMessage;
    if (dialog === "precision") openPrecisionDialog(this.ctx, nodes);
    else void openProfileDialog(this.ctx, nodes.find((id) => this.ctx.store.nodes.get(id)?.kind === "input") ?? null);
  }

  refresh(): void {
    // the badges are painted with the glyphs (terminals.ts): nothing of its own to draw again
  }

  /** A layer's Set Layer Precision… (for the selection), an input's Set TensorRT Optimization Profile…. */
  menuItems(id: string): OverlayMenuItem[] {
    const kind = this.ctx.store.nodes.get(id)?.kind;
    const selected = () => this.ctx.cy.nodes(":selected").map((n) => n.id());
    if (kind === "op") return [{ label: "Set Layer Precision…", run: () => openPrecisionDialog(this.ctx, selected()) }];
    if (kind === "input") return [{ label: "Set TensorRT Optimization Profile…", run: () => void openProfileDialog(this.ctx, id) }];
    return [];
  }
}

export const tensorrtOverlay: OverlayKind = { name: TENSORRT, make: (ctx) => new TensorRtOverlay(ctx) };
