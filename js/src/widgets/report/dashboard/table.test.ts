// A dashboard table in the DOM: filter (flags shown yes/no, exported 1/0), header-click sort with empty cells last, CSV of the rows
// shown with formula-looking names made inert (as reports/export.csv_cell does), names as text, never HTML.
import { describe, expect, it } from "vitest";
import { Listeners } from "../../../common/listeners";
import { tableCsv } from "./data";
import { DataTable } from "./table";

const data = {
  name: "ops",
  columns: ["#", "Op Name", "GPU ms", "Using TC"],
  rows: [
    [0, "<img src=x onerror=alert(1)>", 0.5, true],
    [1, "=HYPERLINK(\"x\")", null, false],
    [2, "conv", 2.25, true],
  ],
};

describe("dashboard table", () => {
  it("filters, sorts and exports what it shows", () => {
    const listeners = new Listeners((e) => { throw e; });
    const table = new DataTable(listeners, data);
    document.body.append(table.root);
    expect(table.root.querySelector("img")).toBeNull();
    expect(table.root.textContent).toContain("<img src=x onerror=alert(1)>");
    const header = table.root.querySelectorAll("th")[2] as HTMLElement;
    header.click();
    expect(table.visible().map((r) => r[0])).toEqual([2, 0, 1]); // descending, the empty cell last
    header.click();
    expect(table.visible().map((r) => r[0])).toEqual([0, 2, 1]);
    const filter = table.root.querySelector("input") as HTMLInputElement;
    filter.value = "CONV";
    filter.dispatchEvent(new Event("input"));
    expect(table.visible().map((r) => r[0])).toEqual([2]); // any case, any column
    expect(table.root.querySelector(".dld-d-count")?.textContent).toBe("1 of 3 rows");
    filter.value = "no";
    filter.dispatchEvent(new Event("input"));
    expect(table.visible().map((r) => r[0])).toEqual([1]); // a flag filters by what it shows
    expect([...table.root.querySelectorAll("td")].map((td) => td.textContent)).toContain("no");
    expect(tableCsv(data.columns, [data.rows[1]])).toBe("#,Op Name,GPU ms,Using TC\n1,\"'=HYPERLINK(\"\"x\"\")\",,0\n");
    listeners.dispose();
    table.root.remove();
  });
});
