/**
 * The first picture of a graph is drawn from the elements' textures, not from cytoscape's layered textures (issue 42:
 * MobileNetV3-small from a cell as soon as Netron shows it).
 *
 * cytoscape's layered texture cache (layered-texture-cache.mjs, getLayers) draws EVERY element, in view or not,
 * into a few big offscreen canvases on its first use, synchronously inside the first render, and only then draws
 * those layers on screen; every later use queues the layers and fills them a little per frame (its dequeue), drawing
 * the elements in view directly meanwhile. That first build was most of the paint phase of open_time_bench's cell
 * path, and wasted: the restyles that follow the first view invalidate those layers, and 2.5 s after opening the
 * real ResNet-18 and MobileNetV3-small exports (a hover and a click later too) the page held no layer. Marking
 * the cache as used gives the first render the path every later one takes: the same element textures, those in
 * view, drawn straight onto the canvas (the same pixels), the layers queued and built lazily once the canvas is up.
 */
import type { Core } from "cytoscape";

interface LayerCache { firstGet: boolean }

/** The first render of `cy` draws its elements directly; its layers are queued and built lazily afterwards. */
export function lazyFirstLayers(cy: Core): void {
  const cache = layerCache(cy);
  if (cache) cache.firstGet = false;
}

function layerCache(cy: Core): LayerCache | undefined {
  return (cy as unknown as { renderer(): { data: { lyrTxrCache?: LayerCache } } }).renderer().data.lyrTxrCache;
}
