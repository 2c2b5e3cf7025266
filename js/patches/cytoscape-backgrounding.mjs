// Fixes cytoscape's per-frame restyle of nodes without background images (cytoscape 3.34); applied by cytoscape.mjs.
//
// drawNode calls drawImages twice (inside and over the border). For the default background-image 'none', the
// "over" pass counted the undefined image as completed and the "inside" pass did not, so `backgrounding` flipped
// on every draw and each flip ran node.updateStyle(): every compound parent (drawn uncached each frame) re-applied
// the style of itself, its descendants and ancestors on every frame (14-20 ms a frame for a 50-node view here).
// The fix skips undefined images before counting. The build fails if the source changed, so an upgrade is noticed.

const LOOP = "    for (var _i = 0; _i < image.length; _i++) {\n";
const FIXED = LOOP + "      if (!urlDefined[_i]) continue; // dld_jupyter: see js/patches/cytoscape-backgrounding.mjs\n";

export function backgrounding(source, path) {
  const at = source.indexOf(LOOP);
  if (at < 0 || source.indexOf(LOOP, at + 1) >= 0 || !source.includes("_p.backgrounding = !(totalCompleted === numImages);")) {
    throw new Error(`${path}: the drawImages loop this patch fixes was not found once; review js/patches/cytoscape-backgrounding.mjs`);
  }
  return source.replace(LOOP, FIXED);
}
