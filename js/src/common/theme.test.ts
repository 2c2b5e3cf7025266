// Theme colours resolved from JupyterLab's CSS variables (jsdom computes custom properties set on body), the
// dark-theme glyph colours (labels turn light), and the export background choices.
import { afterEach, describe, expect, it } from "vitest";
import { DARK, LIGHT, luminance, mix, over, parseColor, readTheme } from "./theme";
import { exportPaint } from "../widgets/canvas/svg";
import { stylesheet } from "../widgets/canvas/style";
import { categoryColor, textColor } from "../widgets/canvas/colors";

afterEach(() => {
  document.body.removeAttribute("style");
  delete document.body.dataset.jpThemeLight;
  delete document.body.dataset.jpThemeName;
});

function jupyterDark(): void {
  document.body.dataset.jpThemeLight = "false";
  document.body.dataset.jpThemeName = "JupyterLab Dark";
  document.body.style.setProperty("--jp-layout-color0", "#111");
  document.body.style.setProperty("--jp-layout-color2", "#424242");
  document.body.style.setProperty("--jp-ui-font-color1", "rgba(255,255,255,.87)");
  document.body.style.setProperty("--jp-ui-font-color2", "rgba(255,255,255,.54)");
  document.body.style.setProperty("--jp-border-color1", "#616161");
}

describe("colour arithmetic", () => {
  it("parses hex and rgb(a), composites and mixes", () => {
    expect(parseColor("#fff")).toEqual([255, 255, 255, 1]);
    expect(parseColor("rgba(255, 255, 255, 0.5)")).toEqual([255, 255, 255, 0.5]);
    expect(parseColor("white")).toBeNull();
    expect(over("rgba(255,255,255,.87)", "#111111")).toBe("#e0e0e0");
    expect(mix("#000000", "#ffffff", 0.5)).toBe("#808080");
    expect(luminance("#ffffff")).toBeCloseTo(1);
    expect(luminance("#111111")).toBeLessThan(0.01);
  });
});

describe("readTheme", () => {
  it("is the light default outside JupyterLab", () => {
    const t = readTheme();
    expect(t.dark).toBe(false);
    expect(t.background).toBe("#ffffff");
    expect(t.text).toBe(LIGHT.text);
  });
  it("resolves JupyterLab Dark's variables to opaque colours", () => {
    jupyterDark();
    const t = readTheme();
    expect(t.dark).toBe(true);
    expect(t.name).toBe("JupyterLab Dark");
    expect(t.background).toBe("#111111");
    expect(t.text).toBe("#e0e0e0");
    expect(luminance(t.text)).toBeGreaterThan(0.7);
  });
});

describe("dark canvas", () => {
  it("draws link labels and io names in the theme's text colour on its background", () => {
    jupyterDark();
    const t = readTheme();
    const sheet = stylesheet(false, t) as unknown as Array<{ selector: string; style: Record<string, unknown> }>;
    const io = sheet.find((r) => r.selector === "node.input, node.output");
    expect(io?.style.color).toBe(t.text);
    const edge = sheet.find((r) => r.selector === "edge");
    expect(edge?.style["text-background-color"]).toBe(t.background);
    expect(luminance(String(edge?.style["line-color"]))).toBeGreaterThan(0.15);
  });
  it("deepens every default-scheme op colour so its label turns light", () => {
    for (const category of ["Convolution", "Activation", "Normalization", "Math / Elementwise", "Matrix Multiply", "Pooling", "Other"]) {
      const deep = mix(categoryColor(category, "default"), DARK.background, 0.35);
      expect(textColor(deep)).toBe("#ffffff");
    }
  });
});

describe("export background", () => {
  it("theme, white, transparent and colours", () => {
    jupyterDark();
    const t = readTheme();
    expect(exportPaint("theme", t)).toEqual({ fill: "#111111", theme: t });
    expect(exportPaint("transparent", t)).toEqual({ fill: null, theme: t });
    expect(exportPaint("white", t)).toEqual({ fill: "#ffffff", theme: LIGHT });
    expect(exportPaint("#000000", LIGHT).theme.dark).toBe(true);
    expect(() => exportPaint("not-a-colour", t)).toThrow(/theme.*white.*transparent/);
  });
});
