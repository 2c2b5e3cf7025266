import { describe, expect, it } from "vitest";
import { DivergenceRow, formatCell, sortRows } from "./divergence";
import { groupMark } from "./marks";

const row = (node: string, max_abs: number | string, order: number): DivergenceRow => ({
  id: node, node, op: "Add", order, output: 0, max_abs, max_rel: 0, cosine: 1, sqnr: "inf", nan: 0, inf: 0,
  over: false, value: max_abs, error: null, worst: true,
});

describe("divergence table", () => {
  const rows = [row("b", 0.5, 1), row("a", "nan", 0), row("c", 2, 2), row("d", "inf", 3)];

  it("sorts numbers numerically both ways, infinities in place and NaN always last", () => {
    expect(sortRows(rows, "max_abs", false).map((r) => r.node)).toEqual(["d", "c", "b", "a"]);
    expect(sortRows(rows, "max_abs", true).map((r) => r.node)).toEqual(["b", "c", "d", "a"]);
  });

  it("sorts names as text and execution order as numbers, without changing the rows given", () => {
    expect(sortRows(rows, "node", true).map((r) => r.node)).toEqual(["a", "b", "c", "d"]);
    expect(sortRows(rows, "order", false).map((r) => r.order)).toEqual([3, 2, 1, 0]);
    expect(rows.map((r) => r.node)).toEqual(["b", "a", "c", "d"]);
  });

  it("formats cells: integers plainly, tiny and huge values in exponent form, text as given", () => {
    expect(formatCell(3)).toBe("3");
    expect(formatCell(0.00012)).toBe("1.20e-4");
    expect(formatCell(3.4e38)).toBe("3.40e+38");
    expect(formatCell(0.5)).toBe("0.5000");
    expect(formatCell("inf")).toBe("inf");
    expect(formatCell(null)).toBe("");
  });

  it("a collapsed group shows the most telling mark inside it", () => {
    expect(groupMark({ within: 4, over: 1 }, ["over", "within"])).toBe("over");
    expect(groupMark({ within: 4 }, ["over", "within"])).toBe("within");
    expect(groupMark(undefined, ["over"])).toBeNull();
  });
});
