/**
 * The overview: every node as a coloured box and every link as a line, painted straight onto the overlay canvas
 * from the kernel's positions. It is the first paint of a big expanded graph while cytoscape creates its
 * elements in the background (cytoscape's element creation is its cost: ../shared/BROWSER.md).
 */
import type { GraphStore } from "./graph";

export function drawOverview(g: CanvasRenderingContext2D, store: GraphStore, zoom: number): void {
  const byColor = new Map<string, Path2D>();
  for (const [id, p] of store.pos) {
    const n = store.nodes.get(id);
    if (!n || (n.kind === "group" && !n.collapsed)) continue;
    const color = store.colorOf(n);
    let path = byColor.get(color);
    if (!path) byColor.set(color, (path = new Path2D()));
    path.rect(p.x - n.width / 2, p.y - n.height / 2, n.width, n.height);
  }
  const links = new Path2D();
  for (const e of store.edges.values()) {
    const a = store.pos.get(e.source);
    const b = store.pos.get(e.target);
    if (!a || !b) continue;
    links.moveTo(a.x, a.y);
    links.lineTo(b.x, b.y);
  }
  g.strokeStyle = "#94a3b8";
  g.lineWidth = 1 / zoom;
  g.stroke(links);
  for (const [color, path] of byColor) {
    g.fillStyle = color;
    g.fill(path);
  }
}
