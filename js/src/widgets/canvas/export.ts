/** Canvas export (seed "Exporting the Canvas"): SVG text, or PNG/JPEG rasterized from that SVG in the browser. */
import type { CanvasContext } from "./context";
import type { ExportFormat } from "../../common/protocol";
import { toSvg } from "./svg";

const MAX_SIDE = 16000; // browsers refuse larger canvases

/** The image as SVG text or base64 PNG/JPEG (no data: prefix). */
export async function exportImage(ctx: CanvasContext, format: ExportFormat, background: string, grid: boolean, gridColour = ""): Promise<string> {
  // JPEG has no transparency: the theme's background instead.
  const bg = format === "jpg" && (!background || background === "transparent") ? "theme" : background;
  const image = toSvg(ctx, bg, grid, gridColour);
  if (format === "svg") return image.svg;
  const scale = Math.min(2, MAX_SIDE / Math.max(image.width, image.height));
  const img = new Image();
  const url = URL.createObjectURL(new Blob([image.svg], { type: "image/svg+xml" }));
  try {
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error("the browser could not rasterize the SVG"));
      img.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(image.width * scale));
    canvas.height = Math.max(1, Math.round(image.height * scale));
    const g = canvas.getContext("2d");
    if (!g) throw new Error("no 2D canvas context");
    g.drawImage(img, 0, 0, canvas.width, canvas.height);
    const dataUrl = canvas.toDataURL(format === "png" ? "image/png" : "image/jpeg", 0.92);
    return dataUrl.slice(dataUrl.indexOf(",") + 1);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Save the export as a browser download (context menu): on the theme's background, or transparent. */
export async function download(ctx: CanvasContext, format: ExportFormat, background: "theme" | "transparent" = "theme"): Promise<void> {
  const data = await exportImage(ctx, format, background, Boolean(ctx.model.get("show_grid")));
  const blob =
    format === "svg"
      ? new Blob([data], { type: "image/svg+xml" })
      : new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], { type: format === "png" ? "image/png" : "image/jpeg" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${String(ctx.model.get("title") || "model")}.${format}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
