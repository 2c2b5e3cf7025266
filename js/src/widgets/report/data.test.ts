import { describe, expect, it } from "vitest";
import { matchedRows } from "./data";

describe("compare header", () => {
  it("counts rows two or more reports have (position -1: the report lacks the row)", () => {
    const a = new Float64Array([0, 1, 2, -1]);
    const b = new Float64Array([0, -1, 1, 2]);
    expect(matchedRows([a, b], 4)).toBe(2);
    expect(matchedRows([a, b, new Float64Array([-1, 3, -1, -1])], 4)).toBe(3);
  });
});
