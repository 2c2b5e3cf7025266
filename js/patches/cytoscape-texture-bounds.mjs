// Drops a bounding box of the whole graph that cytoscape computes and never reads (cytoscape 3.34); applied by
// cytoscape.mjs.
//
// When a gesture starts on a graph drawn with textureOnViewport, render() makes its texture and first stores
// `textureCache.bb = cy.mutableElements().boundingBox()`: no code reads `textureCache.bb`, and the sum walks every
// element (10-30 ms at 5,000 nodes here, in the first frame of every pan and zoom; issue 42). The build fails if the
// line is not found once, so an upgrade is noticed (and a release that starts reading it is reviewed).

const LINE = "      r.textureCache.bb = cy.mutableElements().boundingBox();\n";
const FIXED = "      // dld_jupyter: textureCache.bb is never read; see js/patches/cytoscape-texture-bounds.mjs\n";

export function textureBounds(source, path) {
  const at = source.indexOf(LINE);
  if (at < 0 || source.indexOf(LINE, at + 1) >= 0 || source.split("textureCache.bb").length !== 2) {
    throw new Error(`${path}: the texture's unused bounding box was not found once (or is read now); review js/patches/cytoscape-texture-bounds.mjs`);
  }
  return source.replace(LINE, FIXED);
}
