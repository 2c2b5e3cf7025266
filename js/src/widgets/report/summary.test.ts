// The summary header says where the run ran (issue 42): the target the kernel computed (reports/summary_text.py's
// target_text) and the device, on a real payload (fixtures/selection_case.json, written by the Python test).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode } from "./data";
import { summaryView } from "./summary";

const fixture = JSON.parse(readFileSync(join(__dirname, "fixtures", "selection_case.json"), "utf8"));
const bytes = Uint8Array.from(Buffer.from(fixture.data, "base64"));

function rows(target: string | null | undefined): Map<string, string> {
  const payload = { ...fixture.payload, reports: [{ ...fixture.payload.reports[0], target }] };
  const [report] = decode(payload, new DataView(bytes.buffer)).reports;
  const grid = summaryView(report).querySelector(".dld-r-summary-grid")!;
  const cells = [...grid.children].map((c) => c.textContent ?? "");
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < cells.length; i += 2) out.set(cells[i], cells[i + 1]);
  return out;
}

describe("summary header", () => {
  it("shows the target and the device of the run", () => {
    const shown = rows("gpu-box (remote, host h200-3)");
    expect(shown.get("Target")).toBe("gpu-box (remote, host h200-3)");
    expect(shown.get("Device")).toBe(fixture.payload.reports[0].summary.device);
  });
  it("has no Target row for a report that does not say where it ran (an old payload, a trtexec import)", () => {
    expect(rows(undefined).has("Target")).toBe(false);
    expect(rows(null).has("Target")).toBe(false);
  });
});
