import { describe, expect, it } from "vitest";
import { WHEEL_STEP, wheelPixels, wheelZoom } from "./wheel";
import { groupFont } from "./readability";

describe("wheel zoom", () => {
  it("zooms one step per mouse tick, in proportion for touchpads, within the limits", () => {
    expect(wheelZoom(1, -100, 0.01, 4)).toBeCloseTo(WHEEL_STEP);
    expect(wheelZoom(1, 100, 0.01, 4)).toBeCloseTo(1 / WHEEL_STEP);
    let zoom = 0.1;
    for (let i = 0; i < 4; i++) zoom = wheelZoom(zoom, -100, 0.01, 4);
    expect(zoom / 0.1).toBeGreaterThan(2); // four ticks double the zoom (cytoscape needed about 30)
    expect(wheelZoom(1, -10, 0.01, 4)).toBeCloseTo(Math.pow(WHEEL_STEP, 0.1));
    expect(wheelZoom(3.9, -1000, 0.01, 4)).toBe(4);
    expect(wheelPixels({ deltaY: 3, deltaMode: 1 })).toBe(99);
  });
  it("keeps group names about 10 px on screen when zoomed out", () => {
    expect(groupFont(1)).toBe(14);
    expect(groupFont(0.25)).toBe(40);
    expect(groupFont(0.01)).toBe(60);
  });
});
