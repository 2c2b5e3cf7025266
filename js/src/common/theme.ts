/**
 * The JupyterLab theme for what CSS cannot colour: cytoscape's stylesheet and 2D-canvas drawings read colours as
 * values, not CSS variables. `readTheme` resolves the theme's variables (--jp-layout-color0, --jp-ui-font-color1...)
 * to concrete rgb colours through getComputedStyle; `watchTheme` calls back when JupyterLab switches theme (it
 * rewrites the body's data-jp-theme-* attributes). Outside JupyterLab (no variables) the light defaults apply.
 */

export interface Theme {
  dark: boolean;
  name: string;
  background: string; // canvas / viewer background
  panel: string; // a raised surface (axis band, group fill)
  text: string; // labels on the background
  muted: string; // secondary text, links
  border: string;
  accent: string; // selection
}

export const LIGHT: Theme = {
  dark: false, name: "light", background: "#ffffff", panel: "#f3f4f6", text: "#111827", muted: "#64748b",
  border: "#374151", accent: "#f59e0b",
};

/** JupyterLab Dark's colours, for an export on a dark background from a light theme. */
export const DARK: Theme = {
  dark: true, name: "dark", background: "#111111", panel: "#424242", text: "#e0e0e0", muted: "#8c8c8c",
  border: "#616161", accent: "#fbbf24",
};

type Rgb = [number, number, number, number];

/** "#abc", "#aabbcc", "rgb(…)", "rgba(…)" → [r, g, b, a]; null when not a colour this reads. */
export function parseColor(text: string): Rgb | null {
  const s = text.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(s);
  if (hex) {
    const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join("") : hex[1];
    const n = parseInt(h, 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255, 1];
  }
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+%?))?\s*\)$/i.exec(s);
  if (!rgb) return null;
  const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith("%") ? parseFloat(rgb[4]) / 100 : parseFloat(rgb[4]);
  return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), alpha];
}

const hex2 = (v: number) => Math.round(Math.max(0, Math.min(255, v))).toString(16).padStart(2, "0");
const toHex = (c: Rgb) => `#${hex2(c[0])}${hex2(c[1])}${hex2(c[2])}`;

/** `fg` (possibly translucent) laid over the opaque `bg`, as #rrggbb. */
export function over(fg: string, bg: string): string {
  const f = parseColor(fg);
  const b = parseColor(bg) ?? [255, 255, 255, 1];
  if (!f) return toHex(b);
  const a = f[3];
  return toHex([f[0] * a + b[0] * (1 - a), f[1] * a + b[1] * (1 - a), f[2] * a + b[2] * (1 - a), 1]);
}

/** `a` moved `amount` (0..1) of the way towards `b`, as #rrggbb. */
export function mix(a: string, b: string, amount: number): string {
  const x = parseColor(a) ?? [0, 0, 0, 1];
  const y = parseColor(b) ?? [0, 0, 0, 1];
  return toHex([0, 1, 2, 3].map((i) => x[i] + (y[i] - x[i]) * amount) as Rgb);
}

/** Relative luminance 0 (black) … 1 (white), WCAG's formula. */
export function luminance(color: string): number {
  const c = parseColor(color);
  if (!c) return 1;
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
}

let probe: HTMLElement | null = null;

/** A CSS variable as a concrete colour (keywords and var() chains resolved by the browser), or `fallback`. */
function cssColor(scope: Element, name: string, fallback: string): string {
  const raw = getComputedStyle(scope).getPropertyValue(name).trim();
  if (!raw) return fallback;
  if (parseColor(raw)) return raw;
  if (!probe) {
    probe = document.createElement("span");
    probe.style.display = "none";
  }
  if (!probe.isConnected) document.body.appendChild(probe);
  probe.style.color = "";
  probe.style.color = raw;
  const resolved = getComputedStyle(probe).color;
  return probe.style.color && parseColor(resolved) ? resolved : fallback;
}

/** The theme in force at `scope` (its variables may be overridden below body). */
export function readTheme(at: Element = document.body): Theme {
  const scope = at.isConnected ? at : document.body; // a detached element has no inherited variables
  const background = over(cssColor(scope, "--jp-layout-color0", LIGHT.background), "#ffffff");
  const flag = document.body.dataset.jpThemeLight;
  const dark = flag === undefined ? luminance(background) < 0.4 : flag === "false";
  const base = dark ? "#111111" : "#ffffff";
  const on = (name: string, fallback: string) => over(cssColor(scope, name, fallback), background || base);
  return {
    dark,
    name: document.body.dataset.jpThemeName ?? (dark ? "dark" : "light"),
    background,
    panel: on("--jp-layout-color2", LIGHT.panel),
    text: on("--jp-ui-font-color1", LIGHT.text),
    muted: on("--jp-ui-font-color2", LIGHT.muted),
    border: on("--jp-border-color1", LIGHT.border),
    accent: dark ? "#fbbf24" : LIGHT.accent,
  };
}

/**
 * Call `changed(theme)` whenever JupyterLab switches theme (only when the resolved colours differ); returns the
 * function that stops watching. `scope` is where the colours are read.
 */
export function watchTheme(scope: Element, changed: (theme: Theme) => void): () => void {
  let last = JSON.stringify(readTheme(scope));
  let frame = 0;
  let timer = 0;
  const check = () => {
    const theme = readTheme(scope);
    const key = JSON.stringify(theme);
    if (key === last) return;
    last = key;
    changed(theme);
  };
  const observer = new MutationObserver(() => {
    // Read after the new stylesheet has applied (next frames), and once more in case it came late.
    cancelAnimationFrame(frame);
    window.clearTimeout(timer);
    frame = requestAnimationFrame(() => requestAnimationFrame(check));
    timer = window.setTimeout(check, 500);
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  return () => {
    cancelAnimationFrame(frame);
    window.clearTimeout(timer);
    observer.disconnect();
  };
}
