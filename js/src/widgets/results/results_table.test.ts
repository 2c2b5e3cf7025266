import { describe, expect, it } from "vitest";
import { Column, ResultsRow, nextSort, sortRows, tableOf } from "./results_table";

const columns: Column[] = [
  { key: "order", label: "#", numeric: true, descending: false, wrap: false },
  { key: "node", label: "Node", numeric: false, descending: false, wrap: true },
  { key: "max_abs", label: "Max abs", numeric: true, descending: true, wrap: false },
];
const row = (node: string, order: number, max_abs: number | string, over: boolean): ResultsRow =>
  ({ node, order, max_abs, mark: over ? "over" : "" });

describe("results table", () => {
  const rows = [row("<img src=x onerror=alert(1)>", 0, 0, false), row("b", 1, "nan", true), row("c", 2, "inf", true),
    row("d", 3, 0.5, true)];

  it("lists rows in the kernel's order, marks the first row and keeps names as text", () => {
    const table = tableOf(columns, rows, rows[1], null);
    const body = [...table.querySelectorAll("tbody tr")] as HTMLTableRowElement[];
    expect(body.map((r) => r.dataset.node)).toEqual(rows.map((r) => r.node));
    expect(body.map((r) => r.className)).toEqual(["", "over first", "over", "over"]);
    expect(table.querySelector("img")).toBeNull();
  });

  it("sorts numbers numerically (infinities in place, NaN last) and names as text", () => {
    expect(sortRows(rows, columns[2], false).map((r) => r.node)).toEqual(["c", "d", rows[0].node, "b"]);
    expect(sortRows(rows, columns[2], true).map((r) => r.node)).toEqual([rows[0].node, "d", "c", "b"]);
    expect(sortRows(rows, columns[1], true).map((r) => r.node).slice(1)).toEqual(["b", "c", "d"]);
    expect(rows.map((r) => r.order)).toEqual([0, 1, 2, 3]);
  });

  it("a header click sorts by its column, again reversed; metrics start with the largest", () => {
    const byAbs = nextSort(null, columns[2]);
    expect(byAbs).toEqual({ key: "max_abs", ascending: false });
    expect(nextSort(byAbs, columns[2])).toEqual({ key: "max_abs", ascending: true });
    expect(nextSort(byAbs, columns[0])).toEqual({ key: "order", ascending: true });
  });
});
