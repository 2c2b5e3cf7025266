import { describe, expect, it } from "vitest";
import { gradientColour, range, textOn } from "./node_data";

describe("node data colours", () => {
  const stops: Array<[number, string]> = [[0, "#1a9850"], [0.5, "#fee08b"], [1, "#d73027"]];

  it("takes the end colours at the ends and mixes linearly between stops", () => {
    expect(gradientColour(stops, 0)).toBe("#1a9850");
    expect(gradientColour(stops, 1)).toBe("#d73027");
    expect(gradientColour(stops, 0.5)).toBe("#fee08b");
    expect(gradientColour([[0, "#000000"], [1, "#ffffff"]], 0.5)).toBe("#808080");
    expect(gradientColour([[0, "#000"], [1, "#fff"]], 0.25)).toBe("#404040");
  });

  it("finds the range of more values than a spread call takes", () => {
    const many = Array.from({ length: 300_000 }, (_, i) => i - 7);
    expect(range(many)).toEqual([-7, 299_992]);
  });

  it("reads text in black on light colours and in white on dark ones", () => {
    expect(textOn("#fee08b")).toBe("#111111");
    expect(textOn("#2c7bb6")).toBe("#ffffff");
  });
});
