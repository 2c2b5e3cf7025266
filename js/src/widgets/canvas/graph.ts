/**
 * The browser's copy of what the kernel decided to show, applied to cytoscape.
 * Kernel-owned state only (nodes, edges, positions): this file never edits the graph on its own.
 */
import type { Core, ElementDefinition } from "cytoscape";
import type { EdgeData, GraphSnapshot, NodeData, PatchOp } from "../../common/protocol";
import { endpoint } from "./geometry";
import { GROUP_COLOR, IO_COLOR, SchemeName, categoryColor, textColor } from "./colors";
import { LIGHT, Theme, mix } from "../../common/theme";

const FUNCTION_COLOR = "#111111";
const OUTER_COLOR = "#ede9fe"; // outer references of a subgraph: pale violet tags
const PROGRESSIVE = 2500; // elements: above this, create them in chunks behind an overview paint
const CHUNK = 1000; // elements per task (no restyle inside the batch): the page keeps answering between chunks

/**
 * A glyph's text: the op type as its title, the node's name when it says more (`conv1`, `q_proj`), then the main
 * weight shape and key attributes (`W 64×3×7×7 · k7×7 s2`); a local-function instance is titled with its name.
 */
export function glyphLabel(n: NodeData): string {
  if (n.kind === "group") return `${n.name}\n${n.child_count} nodes`;
  if (n.kind !== "op") return n.name;
  const lines = n.function ? [n.name, `f(x) ${n.op_type}`] : [n.op_type, n.subtitle ?? ""];
  if (n.detail) lines.push(n.detail);
  return lines.filter((line) => line).join("\n");
}

export class GraphStore {
  readonly nodes = new Map<string, NodeData>();
  readonly edges = new Map<string, EdgeData>();
  /** Positions from the kernel while elements are still being created (the overview draws these). */
  readonly pos = new Map<string, { x: number; y: number }>();
  scheme: SchemeName = "default";
  /** The JupyterLab theme: dark themes draw op glyphs deeper (their labels turn light) and groups on the panel colour. */
  theme: Theme = LIGHT;
  loading = false;
  /** Called after every change of elements or their data: with ids, only those nodes' boxes changed (the hit index
   * files them again), without, anything may have (it is rebuilt on its next query). */
  onChange: (changed?: string[]) => void = () => undefined;
  private pending: ElementDefinition[] = [];
  private timer = 0;
  private frame = 0;

  constructor(private readonly cy: Core, private readonly onLoaded: () => void = () => undefined) {}

  /** Replace everything. Small graphs are added at once; big ones in chunks, yielding to the browser between. */
  snapshot(graph: GraphSnapshot, positions: Float32Array): void {
    this.flush();
    this.nodes.clear();
    this.edges.clear();
    this.pos.clear();
    const elements: ElementDefinition[] = [];
    graph.nodes.forEach((n, i) => {
      this.nodes.set(n.id, n);
      const p = { x: positions[2 * i], y: positions[2 * i + 1] };
      this.pos.set(n.id, p);
      elements.push(this.nodeElement(n, p.x, p.y));
    });
    for (const e of graph.edges) {
      this.edges.set(e.id, e);
      elements.push(this.edgeElement(e));
    }
    this.cy.elements().remove();
    this.onChange();
    if (elements.length <= PROGRESSIVE) {
      this.cy.batch(() => this.cy.add(elements));
      this.onLoaded();
      return;
    }
    this.loading = true;
    this.pending = elements;
    // One batch across all chunks: cytoscape neither restyles nor redraws a half-built graph between chunks
    // (that made 20k nodes quadratic); the overview stands in until endBatch.
    this.cy.startBatch();
    // Start after the overview's first frame: a timer set now would run before the browser paints.
    this.frame = requestAnimationFrame(() => (this.timer = window.setTimeout(this.step, 0)));
  }

  private step = (): void => {
    this.cy.add(this.pending.splice(0, CHUNK));
    this.onChange();
    if (this.pending.length) {
      this.timer = window.setTimeout(this.step, 0);
    } else {
      this.finish();
    }
  };

  private finish(): void {
    this.loading = false;
    this.cy.endBatch();
    this.onLoaded();
  }

  /** Create every element still pending now (a patch must find them). */
  flush(): void {
    clearTimeout(this.timer);
    cancelAnimationFrame(this.frame);
    if (this.pending.length) {
      const rest = this.pending;
      this.pending = [];
      this.cy.add(rest);
      this.onChange();
    }
    if (this.loading) this.finish();
  }

  dispose(): void {
    clearTimeout(this.timer);
    cancelAnimationFrame(this.frame);
    this.pending = [];
    if (this.loading) {
      this.loading = false;
      this.cy.endBatch();
    }
  }

  /** Bounding box of the kernel's positions (the graph may not be in cytoscape yet). */
  extent(): { x1: number; y1: number; x2: number; y2: number } | null {
    let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
    for (const [id, p] of this.pos) {
      const n = this.nodes.get(id);
      const w = (n?.width ?? 0) / 2;
      const h = (n?.height ?? 0) / 2;
      x1 = Math.min(x1, p.x - w); y1 = Math.min(y1, p.y - h);
      x2 = Math.max(x2, p.x + w); y2 = Math.max(y2, p.y + h);
    }
    return isFinite(x1) ? { x1, y1, x2, y2 } : null;
  }

  colorOf(n: NodeData): string {
    return this.colors(n).color;
  }

  /** Apply kernel patch ops in order; positions of add_nodes then move ids are read from `positions`. */
  patch(ops: PatchOp[], positions: Float32Array): void {
    this.flush();
    let cursor = 0;
    const next = () => {
      const p = { x: positions[cursor], y: positions[cursor + 1] };
      cursor += 2;
      return p;
    };
    // The hit index (and the culling that reads it) is rebuilt when elements come, go or move; a glyph whose text
    // or size changed (a rename, an attribute edit) is only filed again with its links and groups (a full rebuild
    // per edit was ~1 ms of each edit's frame).
    let moved = false;
    const refiled: string[] = [];
    this.cy.batch(() => {
      for (const op of ops) {
        if (op.op === "update_nodes") {
          refiled.push(...this.updateNodes(op.nodes));
          continue;
        }
        moved = true;
        if (op.op === "remove_edges") this.removeEdges(op.ids);
        else if (op.op === "remove_nodes") this.removeNodes(op.ids);
        else if (op.op === "add_nodes") {
          for (const n of op.nodes) {
            const p = next();
            this.nodes.set(n.id, n);
            this.pos.set(n.id, p);
            this.cy.getElementById(n.id).remove();
            this.cy.add(this.nodeElement(n, p.x, p.y));
          }
        } else if (op.op === "add_edges" || op.op === "update_edges") {
          this.removeEdges(op.edges.map((e) => e.id));
          for (const e of op.edges) {
            this.edges.set(e.id, e);
            this.cy.add(this.edgeElement(e));
          }
        } else if (op.op === "move") {
          for (const id of op.ids) {
            const p = next();
            this.pos.set(id, p);
            const node = this.cy.getElementById(id);
            if (node.nonempty() && !node.isParent()) node.position(p);
          }
        }
      }
    });
    if (moved) this.onChange();
    else if (refiled.length) this.onChange(refiled);
  }

  /** Recolour every node (colour scheme change): data only, no element is recreated. */
  restyle(scheme: SchemeName): void {
    this.scheme = scheme;
    this.onChange();
    this.cy.batch(() => {
      for (const n of this.nodes.values()) {
        const el = this.cy.getElementById(n.id);
        if (el.nonempty()) el.data(this.colors(n));
      }
    });
  }

  private removeEdges(ids: string[]): void {
    for (const id of ids) {
      this.edges.delete(id);
      this.cy.getElementById(id).remove();
    }
  }

  private removeNodes(ids: string[]): void {
    for (const id of ids) {
      this.nodes.delete(id);
      this.pos.delete(id);
      const el = this.cy.getElementById(id);
      // Children of a removed compound group are re-parented, never dropped silently: the kernel lists them.
      if (el.nonempty()) {
        el.children().move({ parent: null });
        el.remove();
      }
    }
  }

  /** The glyphs whose text or size changed (their boxes, and their groups', may have). */
  private updateNodes(nodes: NodeData[]): string[] {
    const resized: string[] = [];
    for (const n of nodes) {
      this.nodes.set(n.id, n);
      const el = this.cy.getElementById(n.id);
      if (el.empty()) continue;
      // Only what changed: each data write makes cytoscape restyle the element and its compound ancestors.
      const fields: Record<string, unknown> = this.nodeFields(n);
      const changed: Record<string, unknown> = {};
      for (const key of Object.keys(fields)) if (key !== "id" && el.data(key) !== fields[key]) changed[key] = fields[key];
      if (Object.keys(changed).length) el.data(changed);
      if ("w" in changed || "h" in changed || "label" in changed || "line" in changed) resized.push(n.id);
      // Terminal positions may have moved (variadic growth): re-attach the links whose ends moved.
      el.connectedEdges().forEach((edge) => {
        const e = this.edges.get(edge.id());
        if (!e) return;
        const sep = this.sourceEnd(e);
        const tep = this.targetEnd(e);
        if (edge.data("sep") !== sep || edge.data("tep") !== tep) edge.data({ sep, tep });
      });
    }
    return resized;
  }

  /** Fill and label colours of a node under `theme` (the current one unless given: exports may choose another). */
  colors(n: NodeData, theme: Theme = this.theme): { color: string; fg: string } {
    if (n.function && n.kind === "op") return theme.dark ? { color: "#000000", fg: "#ffffff" } : { color: FUNCTION_COLOR, fg: "#ffffff" };
    if (n.kind === "outer") return theme.dark ? { color: mix(OUTER_COLOR, theme.background, 0.75), fg: "#ede9fe" } : { color: OUTER_COLOR, fg: "#3b0764" };
    let color = n.kind === "op" ? categoryColor(n.category, this.scheme) : n.kind === "group" ? GROUP_COLOR : IO_COLOR;
    if (theme.dark) color = n.kind === "group" ? theme.panel : mix(color, theme.background, n.kind === "op" ? 0.35 : 0.2);
    return { color, fg: textColor(color) };
  }

  private nodeFields(n: NodeData) {
    const fields = { id: n.id, label: glyphLabel(n), kind: n.kind, w: n.width, h: n.height, ...this.colors(n) };
    // A group: its label on one line (an expanded group's sits inside its top padding) and its size, which ranks
    // its label when labels would collide (readability.ts).
    return n.kind === "group" ? { ...fields, line: `${n.name} · ${n.child_count} nodes`, count: n.child_count } : fields;
  }

  private nodeElement(n: NodeData, x: number, y: number): ElementDefinition {
    const classes: string[] = [n.kind];
    if (n.composite) classes.push("composite");
    if (n.function) classes.push("function"); // a local-function instance: black, f(x) (seed "Local Functions")
    if (n.kind === "op" && (n.subgraphs?.length || n.function)) classes.push("opens"); // the glyph's open button
    if (n.kind === "group") classes.push(n.collapsed ? "collapsed" : "expanded");
    const data: Record<string, unknown> = this.nodeFields(n);
    if (n.parent && this.nodes.has(n.parent)) data.parent = n.parent;
    return { group: "nodes", data, position: { x, y }, classes: classes.join(" ") };
  }

  private sourceEnd(e: EdgeData): string {
    return endpoint(this.nodes.get(e.source), "out", e.source_index);
  }

  private targetEnd(e: EdgeData): string {
    return endpoint(this.nodes.get(e.target), "in", e.target_index);
  }

  private edgeElement(e: EdgeData): ElementDefinition {
    return {
      group: "edges",
      data: {
        id: e.id, source: e.source, target: e.target, label: e.label ?? "", sep: this.sourceEnd(e), tep: this.targetEnd(e),
        hover: e.label ? `${e.value} ${e.label}` : e.value,
      },
    };
  }
}
