import { describe, expect, it } from "vitest";
import type { DivergenceRow } from "./divergence_rows";
import { nextSort, tableOf } from "./divergence_table";

const row = (node: string, order: number, over: boolean): DivergenceRow => ({
  id: null, node, op: "Conv", order, output: 0, max_abs: over ? 0.5 : 0.0, max_rel: 0, cosine: 1, sqnr: "inf", nan: 0,
  inf: 0, over, value: 0, error: null, worst: true,
});

describe("divergence table", () => {
  const rows = [row("<img src=x onerror=alert(1)>", 0, false), row("b", 1, true), row("c", 2, true)];

  it("lists rows in execution order, marks the first past the tolerance and keeps names as text", () => {
    const table = tableOf(rows, rows[1], { key: "order", ascending: true });
    const body = [...table.querySelectorAll("tbody tr")] as HTMLTableRowElement[];
    expect(body.map((r) => r.dataset.node)).toEqual(rows.map((r) => r.node));
    expect(body.map((r) => r.className)).toEqual(["", "over first", "over"]);
    expect(table.querySelector("img")).toBeNull();
    expect(table.querySelector("th.sorted-up")?.textContent).toBe("#");
  });

  it("a header click sorts by its column, again reversed; metrics start with the largest", () => {
    const byAbs = nextSort({ key: "order", ascending: true }, "max_abs");
    expect(byAbs).toEqual({ key: "max_abs", ascending: false });
    expect(nextSort(byAbs, "max_abs")).toEqual({ key: "max_abs", ascending: true });
    expect(nextSort(byAbs, "node")).toEqual({ key: "node", ascending: true });
  });
});
