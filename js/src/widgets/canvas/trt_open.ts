/** The TensorRT dialogs opened by the kernel: the layer explorer's menu asks the bound designer's canvas to show
 * them (one dialog implementation for both entry points). */
import type { CanvasContext } from "./context";
import { openPrecisionDialog } from "./trt_precision";
import { openProfileDialog } from "./trt_profile";

export function openTrtDialog(ctx: CanvasContext, dialog: "precision" | "profile", nodes: string[]): void {
  if (dialog === "precision") openPrecisionDialog(ctx, nodes);
  else void openProfileDialog(ctx, nodes.find((id) => ctx.store.nodes.get(id)?.kind === "input") ?? null);
}

