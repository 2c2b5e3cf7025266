// The browser's selection statistics agree with dld_jupyter/reports/stats.py on the case the Python test wrote
// (tests/widgets/test_report_viewer.py::test_browser_statistics_fixture_matches_python).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode } from "./data";
import { pyFloat } from "./format";
import { summarizeSelection } from "./stats";

const fixture = JSON.parse(readFileSync(join(__dirname, "fixtures", "selection_case.json"), "utf8"));

describe("selection statistics", () => {
  it("match reports/stats.py", () => {
    const bytes = Uint8Array.from(Buffer.from(fixture.data, "base64"));
    const { reports } = decode(fixture.payload, new DataView(bytes.buffer));
    const s = summarizeSelection(reports[0], fixture.selection, fixture.full_pass);
    const e = fixture.expected;
    expect(s.count).toBe(e.count);
    for (const [name, v] of Object.entries(s.discrete)) {
      expect(v.mostCommon).toEqual(e.discrete[name].most_common);
      expect(v.counts).toEqual(e.discrete[name].counts);
    }
    for (const [name, t] of Object.entries(s.times)) {
      const x = e.times[name];
      expect(t.count).toBe(x.count);
      for (const k of ["min", "max", "mean", "total"] as const) expect(t[k]).toBeCloseTo(x[k], 12);
    }
  });

  it("write floats as Python's repr", () => {
    const cases: [number, string][] = [[1, "1.0"], [0.1, "0.1"], [1e-5, "1e-05"], [0.0001, "0.0001"], [123.456, "123.456"],
      [1e16, "1e+16"], [1234567890123456, "1234567890123456.0"], [2.5e-7, "2.5e-07"], [-0.042, "-0.042"], [0, "0.0"], [7.777777777777778, "7.777777777777778"]];
    for (const [x, s] of cases) expect(pyFloat(x)).toBe(s);
  });
});
