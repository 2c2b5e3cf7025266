/** Every overlay kind of the canvas (Python: dld_jupyter/widgets/canvas/overlays/), registered in one list. */
import { analysisOverlay } from "./analysis";
import { Overlays, registerOverlay } from "./base";
import { diffOverlay } from "./diff";
import { divergenceOverlay } from "./divergence";
import { heatOverlay } from "./heat";
import { nodeDataOverlay } from "./node_data";
import { tensorrtOverlay } from "./tensorrt";

export const OVERLAY_KINDS = [
  heatOverlay, diffOverlay, divergenceOverlay, analysisOverlay, nodeDataOverlay, tensorrtOverlay,
].map(registerOverlay);

/** The overlays of one rendered canvas: one of each registered kind. */
export const canvasOverlays = (): Overlays => new Overlays(OVERLAY_KINDS);
export { Overlays };
