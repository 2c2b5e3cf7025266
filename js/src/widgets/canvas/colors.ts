/** Node colours by op category, in three schemes (the default and two colour-blind-safe ones), and terminal colours. */

export type SchemeName = "default" | "okabe-ito" | "tol-muted";

const CATEGORY_ORDER = [
  "Convolution", "Pooling", "Activation", "Normalization", "Math / Elementwise", "Reduction", "Matrix Multiply",
  "Attention", "Shape / Tensor", "Control Flow", "Quantization", "Recurrent", "Generator / Random",
  "Logical / Comparison", "Sequence / Map", "Image", "Signal", "Text / String", "Loss", "Training", "Classical ML",
  "Other",
];

// Several categories share a colour: there are more op families than distinguishable colours (seed: "Colors").
const PALETTES: Record<SchemeName, string[]> = {
  default: [
    "#4e79a7", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#e15759", "#ff9da7", "#9c755f", "#bab0ac",
  ],
  // Okabe & Ito (2008): distinguishable under the common colour-vision deficiencies.
  "okabe-ito": ["#0072b2", "#009e73", "#e69f00", "#cc79a7", "#56b4e9", "#f0e442", "#d55e00", "#999999"],
  // Paul Tol's "muted" qualitative scheme.
  "tol-muted": ["#332288", "#117733", "#44aa99", "#88ccee", "#ddcc77", "#cc6677", "#aa4499", "#882255", "#999933"],
};

export function categoryColor(category: string, scheme: SchemeName): string {
  const palette = PALETTES[scheme] ?? PALETTES.default;
  const index = CATEGORY_ORDER.indexOf(category);
  return palette[(index < 0 ? CATEGORY_ORDER.length - 1 : index) % palette.length];
}

/** Black or white text, whichever reads better on `hex`. */
export function textColor(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const luminance = 0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return luminance > 150 ? "#111111" : "#ffffff";
}

export const IO_COLOR = "#6b7280";
export const GROUP_COLOR = "#e5e7eb";

/** Seed "Layers": unconnected green, linked dark blue, initializer light blue, placeholders gray. */
export const TERMINAL_COLORS: Record<string, string> = {
  free: "#22a447",
  linked: "#1e3a8a",
  initializer: "#7dd3fc",
  constant: "#9ca3af",
  placeholder: "#c4c4c4",
};
// Colour-blind schemes swap green/blue for hues Okabe-Ito keeps apart.
export const TERMINAL_COLORS_CB: Record<string, string> = {
  free: "#e69f00",
  linked: "#0072b2",
  initializer: "#f0e442",
  constant: "#9ca3af",
  placeholder: "#c4c4c4",
};

export function terminalColor(state: string, scheme: SchemeName): string {
  const table = scheme === "default" ? TERMINAL_COLORS : TERMINAL_COLORS_CB;
  return table[state] ?? TERMINAL_COLORS.free;
}
