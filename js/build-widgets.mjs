// Bundles the anywidget front-end modules (one ESM file per widget, dependencies inlined: no CDN on air-gapped hubs).
import { build } from "esbuild";
import { writeNotices } from "./notices.mjs";
import { cytoscapePatches } from "./patches/cytoscape.mjs";

const entries = { canvas: "src/widgets/canvas/index.ts", report: "src/widgets/report/index.ts", editors: "src/widgets/editors/index.ts", dock: "src/widgets/designer/dock.ts", log_view: "src/widgets/tools/log_view.ts", channel_inspector: "src/widgets/analysis/channel_inspector/index.ts", output_view: "src/widgets/analysis/output_view.ts", model_inputs: "src/widgets/analysis/model_inputs.ts", results_table: "src/widgets/results/results_table.ts" };
const watch = process.argv.includes("--watch");

const metafiles = [];
for (const [name, entry] of Object.entries(entries)) {
  const options = {
    entryPoints: { [name]: entry },
    bundle: true,
    format: "esm",
    target: "es2020",
    minify: !watch,
    sourcemap: watch ? "inline" : false,
    outdir: "../dld_jupyter/static",
    loader: { ".css": "css" },
    logLevel: "warning",
    plugins: [cytoscapePatches],
    metafile: true,
  };
  metafiles.push((await build(options)).metafile);
}
const count = writeNotices(metafiles, "../dld_jupyter/static/THIRD-PARTY-NOTICES.txt");
console.log(`wrote the notices of ${count} bundled package(s) to dld_jupyter/static/THIRD-PARTY-NOTICES.txt`);
console.log(`bundled ${Object.keys(entries).join(", ")} into dld_jupyter/static/`);
