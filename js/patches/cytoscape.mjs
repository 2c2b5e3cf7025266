// esbuild plugin: cytoscape's source with our fixes applied (each file says what it fixes and why).
import { readFile } from "node:fs/promises";
import { backgrounding } from "./cytoscape-backgrounding.mjs";
import { textureBounds } from "./cytoscape-texture-bounds.mjs";
import { freeDragged } from "./cytoscape-free-dragged.mjs";

const PATCHES = [backgrounding, textureBounds, freeDragged];

export const cytoscapePatches = {
  name: "cytoscape-patches",
  setup(build) {
    build.onLoad({ filter: /cytoscape[\\/]dist[\\/]cytoscape\.esm\.mjs$/ }, async (args) => {
      let source = await readFile(args.path, "utf8");
      for (const patch of PATCHES) source = patch(source, args.path);
      return { contents: source, loader: "js" };
    });
  },
};
