/**
 * Heat colours for the time columns: sequential scales that stay ordered for the common colour-vision
 * deficiencies (viridis and cividis are perceptually uniform and CVD-safe; "blues" is single-hue). Low values stay
 * near white so the table remains calm; the text turns white where the cell gets dark.
 */
export type HeatScheme = "cividis" | "viridis" | "blues";
export const SCHEMES: HeatScheme[] = ["cividis", "viridis", "blues"];

const STOPS: Record<HeatScheme, string[]> = {
  cividis: ["#ffffff", "#fde737", "#c4b56c", "#7c7b78", "#3b496c", "#00224e"],
  viridis: ["#ffffff", "#fde725", "#5ec962", "#21918c", "#3b528b", "#440154"],
  blues: ["#ffffff", "#deebf7", "#9ecae1", "#4292c6", "#08519c", "#08306b"],
};

const rgb = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/**
 * Background and text colour for `t` in [0, 1]. `base` replaces the white of the low end (a dark theme's
 * background, so unimportant rows stay calm there too).
 */
export function heat(scheme: HeatScheme, t: number, base = "#ffffff"): { bg: string; fg: string } {
  const stops = [base, ...(STOPS[scheme] ?? STOPS.cividis).slice(1)];
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = rgb(stops[i]);
  const b = rgb(stops[i + 1]);
  const c = a.map((v, k) => Math.round(v + (b[k] - v) * f));
  const luminance = (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, fg: luminance < 0.5 ? "#fff" : "#111" };
}

/** The scale as a CSS gradient, for the legend. */
export const gradient = (scheme: HeatScheme): string => `linear-gradient(90deg, ${STOPS[scheme].join(", ")})`;
