/**
 * The cytoscape stylesheet: shapes per node kind, level of detail through min-zoomed font sizes. Colours that sit
 * on the canvas background (links, their labels, input/output and group names) come from the JupyterLab theme.
 */
import type { StylesheetJson } from "cytoscape";
import { NEUTRAL } from "./overlays/heat_scale";
import { LIGHT, Theme, mix } from "../../common/theme";

// Functions read per-element data: cytoscape caches the result until the data changes.
const end = (key: string) => (ele: { data: (k: string) => string }) => ele.data(key);

/** A small "open" button: a box with an arrow to its top-right corner. */
export const OPEN_ICON =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="14" height="14" viewBox="0 0 14 14">' +
      '<rect x="0.5" y="0.5" width="13" height="13" rx="2" fill="#ffffff" stroke="#111827"/>' +
      '<path d="M4 10 L10 4 M6 4 H10 V8" fill="none" stroke="#1d4ed8" stroke-width="1.6"/></svg>',
  );

/** The breakpoint badge (overlays/analysis.ts): a red dot in the glyph's top-left corner. */
export const BREAKPOINT_ICON =
  "data:image/svg+xml;utf8," +
  encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12"><circle cx="6" cy="6" r="5" fill="#dc2626" stroke="#ffffff" stroke-width="1.5"/></svg>');

export function stylesheet(large = false, theme: Theme = LIGHT): StylesheetJson {
  const link = theme.dark ? mix(theme.muted, theme.text, 0.2) : "#64748b";
  const outline = theme.dark ? theme.border : "#374151";
  const sheet = [
    {
      selector: "node",
      style: {
        shape: "round-rectangle",
        width: "data(w)",
        height: "data(h)",
        "background-color": "data(color)",
        "border-width": 1,
        "border-color": outline,
        label: "data(label)",
        color: "data(fg)",
        "font-size": 12, // 7.8 px at the first view's zoom (0.65): still drawn (min-zoomed-font-size)
        "font-family": "sans-serif",
        "text-wrap": "wrap",
        "text-valign": "center",
        "text-halign": "center",
        "min-zoomed-font-size": 7, // no labels when zoomed far out
      },
    },
    { selector: "node.composite", style: { shape: "rectangle", "border-width": 2 } },
    { selector: "node.input, node.output", style: { shape: "diamond", "font-size": 10, "text-valign": "bottom", color: theme.text } },
    {
      selector: "node.group.collapsed",
      style: { shape: "rectangle", "border-style": "dashed", "border-width": 2, "font-size": 14, color: "data(fg)" },
    },
    {
      selector: "node.group.expanded",
      style: {
        shape: "rectangle",
        "background-opacity": 0.25,
        "border-style": "dashed",
        // One line inside the top padding (text-margin-y follows the font: readability.ts): above the box it was
        // drawn over whatever the layout put there, the glyphs and group names of the row above.
        label: "data(line)",
        "text-valign": "top",
        "text-halign": "center",
        "text-margin-y": 21,
        "font-size": 13,
        color: theme.text,
        padding: "24px",
      },
    },
    {
      // An outer reference inside a subgraph: a value of the enclosing scope, not a graph input.
      selector: "node.outer",
      style: { shape: "tag", "border-style": "dashed", "border-width": 2, "border-color": "#6d28d9", "font-size": 11, "font-style": "italic" },
    },
    {
      // The subgraph / function button in the glyph's top-right corner (subgraph_button.ts hit-tests it).
      selector: "node.opens",
      style: {
        "background-image": OPEN_ICON, "background-width": "14px", "background-height": "14px", "background-clip": "none",
        "background-position-x": "100%", "background-position-y": "0%", "background-offset-x": -3, "background-offset-y": 3,
        "background-image-containment": "over", "background-image-opacity": 1,
      } as never,
    },
    { selector: "node.function.group", style: { "border-style": "solid", "border-color": theme.dark ? theme.text : "#111111", "border-width": 2 } },
    // Heat (overlays/heat.ts): a report's layer times replace the category colours while it is shown.
    { selector: "node.heat", style: { "background-color": "data(heat)", color: "data(heatfg)", "background-opacity": 1 } },
    {
      selector: "node.heat-none",
      style: { "background-color": NEUTRAL.bg, color: NEUTRAL.fg, "border-color": NEUTRAL.border, "border-style": "dashed", "background-opacity": 1 },
    },
    // Comparisons (overlays/diff.ts, divergence.ts): added/changed or within/past the tolerance, same mechanism.
    {
      selector: "node.cmp",
      style: { "background-color": "data(cmp)", color: "data(cmpfg)", "background-opacity": 1, "border-width": 3, "border-color": theme.text },
    },
    { selector: "node.cmp-first", style: { "border-width": 5, "border-color": theme.dark ? "#fca5a5" : "#7f1d1d", "border-style": "double" } },
    // An analysis layer follows this node (overlays/analysis.ts): a dashed violet border, under the selection's colour.
    { selector: "node.an-layer", style: { "border-width": 3, "border-color": "#7c3aed", "border-style": "dashed" } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": theme.accent } },
    // Analysis (overlays/analysis.ts): the output shape under the label, the breakpoint badge, the debugger's stop.
    { selector: "node.an", style: { label: "data(alabel)" } },
    { selector: "node.an-bp", style: { "background-image": BREAKPOINT_ICON, "background-width": "12px", "background-height": "12px", "background-clip": "none", "background-position-x": "0%", "background-position-y": "0%", "background-offset-x": 3, "background-offset-y": 3, "background-image-containment": "over", "background-image-opacity": 1 } as never },
    { selector: "node.an-here", style: { "border-width": 6, "border-color": "#db2777", "border-style": "double" } }, // not the selection's accent
    {
      selector: "edge",
      style: {
        width: 1.5,
        "line-color": link,
        "target-arrow-color": link,
        "target-arrow-shape": "triangle",
        "arrow-scale": 0.8,
        "curve-style": "straight",
        "source-endpoint": end("sep") as unknown as string,
        "target-endpoint": end("tep") as unknown as string,
        label: "data(label)",
        "font-size": 9,
        color: theme.dark ? theme.text : "#334155",
        "text-background-color": theme.background,
        "text-background-opacity": 0.8,
        "text-rotation": "autorotate",
        "min-zoomed-font-size": 8,
      },
    },
    {
      // The hovered link names its value (readability.ts).
      selector: "edge.hover",
      style: { label: "data(hover)", "font-size": 12, "min-zoomed-font-size": 0, width: 2.5, "z-index": 20 },
    },
    { selector: "edge:selected", style: { width: 3, "line-color": theme.accent, "target-arrow-color": theme.accent } },
    // A short link is mostly its label: the label's chip takes the link's colour too, so the highlight shows.
    { selector: "edge.an-in", style: { width: 4, "line-color": "#eab308", "target-arrow-color": "#eab308", "text-background-color": "#eab308", color: "#111111" } },
    { selector: "edge.an-out", style: { width: 4, "line-color": "#2563eb", "target-arrow-color": "#2563eb", "text-background-color": "#2563eb", color: "#ffffff" } },
  ];
  if (large) {
    // Thousands of elements: haystack links (cytoscape's cheapest) from node centre to node centre; terminals
    // still show on the overlay when zoomed in.
    sheet.push({ selector: "edge", style: { "curve-style": "haystack", "haystack-radius": 0, "target-arrow-shape": "none" } as never });
  }
  return sheet as StylesheetJson;
}
