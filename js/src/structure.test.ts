/**
 * The front end's shape, checked where CI runs the TypeScript units (issue 38): no import circle among js/src's
 * modules, type-only imports counted as edges (a circle through `import type` is still two files that cannot be
 * read, moved or tested apart), and no module over 350 lines. The Python side's twin is tests/core/test_layers.py.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname);
const MAX_LINES = 350;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [path] : [];
  });
}

/** A relative specifier as the module file it names (`./x` is x.ts or x/index.ts), or null if it names none. */
function resolveModule(from: string, specifier: string, known: Set<string>): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
  return [`${base}.ts`, join(base, "index.ts")].find((path) => known.has(path)) ?? null;
}

/** Every module's imports (value, type-only and re-exports alike), as paths relative to js/src. */
export function importGraph(files: Map<string, string>): Map<string, string[]> {
  const known = new Set(files.keys());
  const graph = new Map<string, string[]>();
  for (const [path, text] of files) {
    const imported = ts.preProcessFile(text, true, true).importedFiles;
    const targets = imported.map((ref) => resolveModule(path, ref.fileName, known)).filter((t): t is string => !!t);
    graph.set(path, [...new Set(targets)]);
  }
  return graph;
}

/** The import circles (strongly connected components of more than one module, or a module importing itself). */
export function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = new Map(sources(SRC).map((path) => [path, readFileSync(path, "utf8")]));
const name = (path: string): string => relative(SRC, path);

describe("the front end's structure", () => {
  it("has no import circle, type-only imports included", () => {
    const found = circles(importGraph(files)).map((component) => component.map(name).join(" <-> "));
    expect(found).toEqual([]);
  });

  it("keeps every module at most 350 lines", () => {
    const long = [...files].map(([path, text]) => [name(path), text.split("\n").length - 1] as const);
    expect(long.filter(([, lines]) => lines > MAX_LINES).map(([path, lines]) => `${path}: ${lines}`)).toEqual([]);
  });

  it("finds a circle through a type-only import and a re-export", () => {
    const fake = new Map([
      [join(SRC, "a.ts"), 'import type { B } from "./b";\nexport const a = 1;\n'],
      [join(SRC, "b.ts"), 'export { a } from "./c";\nexport type B = number;\n'],
      [join(SRC, "c.ts"), 'import { a } from "./a";\nexport { a };\n'],
      [join(SRC, "d", "index.ts"), 'import { a } from "../a";\n'],
    ]);
    expect(circles(importGraph(fake)).map((component) => component.map(name))).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });
});
