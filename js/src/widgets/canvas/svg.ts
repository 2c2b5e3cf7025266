/**
 * A small SVG serializer of what the canvas draws (nodes, links, terminals, labels, optional grid), in model
 * coordinates. cytoscape-svg exists on npm but draws neither our overlay terminals nor our grid and pulls in
 * canvas2svg; this stays ~100 lines and is also the source of the PNG/JPEG exports (rasterized in the browser).
 */
import type { CanvasContext } from "./context";
import type { NodeData } from "../../common/protocol";
import { OPTIONAL_SCALE, TERMINAL_SIZE, terminalOffset } from "./geometry";
import { terminalColor } from "./colors";
import { DARK, LIGHT, Theme, luminance, mix, parseColor, readTheme } from "../../common/theme";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const GRID = 20;

export interface SvgImage {
  svg: string;
  width: number;
  height: number;
}

/**
 * An export's background and the colours drawn on it. `background`: "theme" (the JupyterLab theme's background and
 * colours), "white", "transparent" (the theme's colours on no background) or a CSS colour (#rrggbb, rgb()): a dark
 * one draws in dark-theme colours, a light one in light-theme colours, whatever the theme on screen.
 */
export function exportPaint(background: string, current: Theme): { fill: string | null; theme: Theme } {
  const choice = (background || "transparent").trim().toLowerCase();
  if (choice === "theme") return { fill: current.background, theme: current };
  if (choice === "transparent") return { fill: null, theme: current };
  const fill = choice === "white" ? "#ffffff" : choice === "black" ? "#000000" : background.trim();
  if (!parseColor(fill)) throw new Error(`export background ${JSON.stringify(background)}: use "theme", "white", "transparent" or a colour such as #ffffff`);
  const dark = luminance(fill) < 0.4;
  return { fill, theme: dark ? (current.dark ? current : DARK) : current.dark ? LIGHT : current };
}

export function toSvg(ctx: CanvasContext, background: string, grid: boolean, gridColour = ""): SvgImage {
  const { fill, theme } = exportPaint(background, readTheme(ctx.root));
  const link = theme.dark ? mix(theme.muted, theme.text, 0.2) : "#64748b";
  const outline = theme.dark ? theme.border : "#374151";
  const bb = ctx.cy.elements().boundingBox();
  const m = 20;
  const x0 = (isFinite(bb.x1) ? bb.x1 : 0) - m;
  const y0 = (isFinite(bb.y1) ? bb.y1 : 0) - m;
  const width = Math.ceil((isFinite(bb.w) ? bb.w : 100) + 2 * m);
  const height = Math.ceil((isFinite(bb.h) ? bb.h : 100) + 2 * m);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${x0} ${y0} ${width} ${height}" font-family="sans-serif">`);
  out.push(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="${link}"/></marker>`);
  if (grid) out.push(`<pattern id="grid" width="${GRID}" height="${GRID}" patternUnits="userSpaceOnUse"><path d="M${GRID},0L0,0L0,${GRID}" fill="none" stroke="${/^#[0-9a-fA-F]{3,8}$/.test(gridColour) ? gridColour : theme.dark ? "#3f3f46" : "#d1d5db"}" stroke-width="0.6"/></pattern>`);
  out.push("</defs>");
  if (fill) out.push(`<rect x="${x0}" y="${y0}" width="${width}" height="${height}" fill="${esc(fill)}"/>`);
  if (grid) out.push(`<rect x="${x0}" y="${y0}" width="${width}" height="${height}" fill="url(#grid)"/>`);
  // Expanded groups first (behind), then links, then nodes with their terminals.
  ctx.cy.nodes().forEach((el) => {
    if (!el.isParent()) return;
    const b = el.boundingBox({ includeLabels: false });
    out.push(`<rect class="group" x="${b.x1}" y="${b.y1}" width="${b.w}" height="${b.h}" fill="${theme.dark ? theme.panel : "#e5e7eb"}" fill-opacity="0.3" stroke="${outline}" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${b.x1 + b.w / 2}" y="${b.y1 + 14}" font-size="13" text-anchor="middle" fill="${theme.text}">${esc(String(el.data("label")).split("\n")[0])}</text>`);
  });
  ctx.cy.edges().forEach((el) => {
    const s = el.sourceEndpoint();
    const t = el.targetEndpoint();
    out.push(`<line class="link" x1="${s.x}" y1="${s.y}" x2="${t.x}" y2="${t.y}" stroke="${link}" stroke-width="1.5" marker-end="url(#arrow)"/>`);
    const label = el.data("label");
    if (label) out.push(`<text x="${(s.x + t.x) / 2 + 4}" y="${(s.y + t.y) / 2}" font-size="9" fill="${theme.dark ? theme.text : "#334155"}">${esc(label)}</text>`);
  });
  ctx.cy.nodes().forEach((el) => {
    if (el.isParent()) return;
    const n = ctx.store.nodes.get(el.id());
    if (!n) return;
    const p = el.position();
    const colors = ctx.store.colors(n, theme);
    out.push(nodeSvg(ctx, n, p.x, p.y, colors, String(el.data("label")), theme));
  });
  out.push("</svg>");
  return { svg: out.join("\n"), width, height };
}

function nodeSvg(ctx: CanvasContext, n: NodeData, x: number, y: number, colors: { color: string; fg: string }, label: string, theme: Theme): string {
  const fill = colors.color;
  const stroke = theme.dark ? theme.border : "#374151";
  const w = n.width;
  const h = n.height;
  const parts: string[] = [];
  if (n.kind === "input" || n.kind === "output") {
    parts.push(`<polygon class="io" points="${x},${y - h / 2} ${x + w / 2},${y} ${x},${y + h / 2} ${x - w / 2},${y}" fill="${fill}" stroke="${stroke}"/>`);
  } else {
    const rx = n.composite || n.kind === "group" ? 0 : 6;
    const dash = n.kind === "group" ? ` stroke-dasharray="6 4"` : "";
    parts.push(`<rect class="node" x="${x - w / 2}" y="${y - h / 2}" width="${w}" height="${h}" rx="${rx}" fill="${fill}" stroke="${stroke}"${dash}/>`);
  }
  const lines = label.split("\n");
  const color = n.kind === "op" || n.kind === "group" ? colors.fg : theme.text; // input/output names sit on the background
  const ty = n.kind === "op" || n.kind === "group" ? y - ((lines.length - 1) * 13) / 2 + 4 : y + h / 2 + 12;
  lines.forEach((line, i) => parts.push(`<text x="${x}" y="${ty + i * 13}" font-size="11" fill="${color}" text-anchor="middle">${esc(line)}</text>`));
  const scheme = ctx.store.scheme;
  const term = (side: "in" | "out", list: NodeData["inputs"]) =>
    list.forEach((t, i) => {
      const off = terminalOffset(w, h, side, i, list.length);
      const s = TERMINAL_SIZE * (t.optional ? OPTIONAL_SCALE : 1);
      const tx = x + off.x;
      const ty2 = y + off.y;
      const c = terminalColor(t.state, scheme);
      if (side === "in") parts.push(`<polygon class="terminal" points="${tx - s},${ty2 - s} ${tx + s},${ty2 - s} ${tx},${ty2 + s * 0.4}" fill="${c}" stroke="#1f2937" stroke-width="0.8"/>`);
      else parts.push(`<circle class="terminal" cx="${tx}" cy="${ty2}" r="${s * 0.8}" fill="${c}" stroke="#1f2937" stroke-width="0.8"/>`);
    });
  if (n.kind !== "group") {
    term("in", n.inputs);
    term("out", n.outputs);
  }
  return `<g class="dld-node" data-id="${esc(n.id)}">${parts.join("")}</g>`;
}
