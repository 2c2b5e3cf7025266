// Writes dld_jupyter/static/THIRD-PARTY-NOTICES.txt: the name, version, licence and licence text of every npm
// package the widget bundles inline. Minification strips their notices (cytoscape.js's MIT notice among them),
// and the MIT and BSD licences require the notice to ship with the copies: this file ships in the wheel beside them.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The package directory of a bundled input path under node_modules ("node_modules/@scope/name/…"). */
function packageDir(input) {
  const parts = input.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return null;
  const scoped = parts[at + 1].startsWith("@");
  return parts.slice(0, at + (scoped ? 3 : 2)).join("/");
}

function licenceText(dir) {
  const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying|notice)(\.|$)/i.test(name));
  return file ? readFileSync(join(dir, file), "utf8").trim() : null;
}

export function writeNotices(metafiles, outFile) {
  const dirs = new Set();
  for (const metafile of metafiles) for (const input of Object.keys(metafile.inputs)) {
    const dir = packageDir(input);
    if (dir) dirs.add(dir);
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const text = licenceText(dir) ?? `${pkg.license} (the package ships no licence file)`;
    return `${pkg.name} ${pkg.version} — ${pkg.license}\n${pkg.homepage ?? ""}\n\n${text}\n`;
  });
  const header =
    "Third-party software bundled in dld_jupyter's widget modules (dld_jupyter/static/*.js).\n" +
    "dld_jupyter itself is licensed under the Apache License 2.0 (see LICENSE).\n";
  writeFileSync(outFile, [header, ...sections].join(`\n${"=".repeat(78)}\n\n`));
  return dirs.size;
}
