/** Where terminals sit on a node glyph: inputs spread along the top edge, outputs along the bottom edge. */
import type { NodeData, TerminalData } from "../../common/protocol";

export const TERMINAL_SIZE = 7; // half size of a full terminal, model units
export const OPTIONAL_SCALE = 0.65;

export interface TerminalHit {
  node: string;
  side: "in" | "out";
  index: number;
  terminal: TerminalData;
  x: number; // model coordinates
  y: number;
}

/** Offset of terminal `i` of `n` from the node center. */
export function terminalOffset(width: number, height: number, side: "in" | "out", i: number, n: number) {
  const x = -width / 2 + (width * (i + 0.5)) / Math.max(n, 1);
  return { x, y: side === "in" ? -height / 2 : height / 2 };
}

/** cytoscape `source-endpoint`/`target-endpoint` value for an edge attached at a terminal. */
export function endpoint(node: NodeData | undefined, side: "in" | "out", index: number): string {
  if (!node || index < 0) return "outside-to-node";
  const list = side === "in" ? node.inputs : node.outputs;
  const slot = list.findIndex((t) => t.index === index && t.state !== "placeholder");
  if (slot < 0) return "outside-to-node";
  const off = terminalOffset(node.width, node.height, side, slot, list.length);
  return `${off.x.toFixed(1)}px ${off.y.toFixed(1)}px`;
}

/** The terminal of `node` (center at cx, cy) nearest to model point (x, y), within `radius`. */
export function terminalAt(
  node: NodeData, cx: number, cy: number, x: number, y: number, radius: number,
): TerminalHit | null {
  let best: TerminalHit | null = null;
  let bestD = radius * radius;
  for (const side of ["in", "out"] as const) {
    const list = side === "in" ? node.inputs : node.outputs;
    list.forEach((t, slot) => {
      const off = terminalOffset(node.width, node.height, side, slot, list.length);
      const dx = cx + off.x - x;
      const dy = cy + off.y - y;
      const d = dx * dx + dy * dy;
      if (d <= bestD) {
        bestD = d;
        best = { node: node.id, side, index: t.index, terminal: t, x: cx + off.x, y: cy + off.y };
      }
    });
  }
  return best;
}
