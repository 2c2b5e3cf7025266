// A press that grabbed nothing no longer visits every element when it is released (cytoscape 3.34); applied by
// cytoscape.mjs.
//
// On every mouseup and touchend cytoscape "frees the dragged elements" by walking all elements of the graph (marking
// each not grabbed, out of the drag layer, not a grab target) and then again to list the grabbed ones, even when the
// press grabbed nothing: every pan of the background ended with two walks over the 11,700 elements of a 5,000-node
// graph (~3 ms a release in Chromium's trace, in the frame that also draws the full picture back; issue 42). Only a
// press that grabbed elements sets those marks, from its list of grabbed elements, and each release clears them all,
// so a release whose list is empty (an empty collection, or the empty array cytoscape starts with) has nothing to
// free. The build fails if the source changed, so an upgrade is noticed.

const HEAD = "  var freeDraggedElements = function freeDraggedElements(grabbedEles) {\n    if (!grabbedEles) {\n";
const FIXED = "  var freeDraggedElements = function freeDraggedElements(grabbedEles) {\n"
  + "    if (!grabbedEles || grabbedEles.length === 0) { // dld_jupyter: see js/patches/cytoscape-free-dragged.mjs\n";

export function freeDragged(source, path) {
  const at = source.indexOf(HEAD);
  if (at < 0 || source.indexOf(HEAD, at + 1) >= 0) {
    throw new Error(`${path}: freeDraggedElements's walk over every element was not found once; review js/patches/cytoscape-free-dragged.mjs`);
  }
  return source.replace(HEAD, FIXED);
}
