// The selection summary's time cell (issue 26, item 5): its values carry their own unit (µs below a millisecond),
// so its label claims none; it said "Inference Time (ms)" over "min 12.30 µs".
import { describe, expect, it } from "vitest";

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode } from "./data";
import { SelectionPanel } from "./selection_panel";

const fixture = JSON.parse(readFileSync(join(__dirname, "fixtures", "selection_case.json"), "utf8"));
const bytes = Uint8Array.from(Buffer.from(fixture.data, "base64"));

describe("selection summary time cell", () => {
  it("labels no unit its values do not all have", () => {
    const data = decode(fixture.payload, new DataView(bytes.buffer)).reports[0];
    const host = document.createElement("div");
    const panel = new SelectionPanel(host, data);
    panel.update([], false);
    const cell = host.querySelector<HTMLElement>("[data-column='median_ms']")!;
    const label = cell.querySelector(".dld-r-selsum-label")!.textContent ?? "";
    const values = [...cell.querySelectorAll<HTMLElement>("[data-stat]")].map((item) => item.textContent ?? "");
    expect(values.length).toBe(4);
    const units = values.map((text) => text.split(" ").pop());
    for (const unit of units) expect(["ns", "µs", "ms", "s"]).toContain(unit);
    expect(units).toContain("µs"); // the fixture's smallest layer is below a millisecond
    const claimed = /\((ns|µs|ms|s)\)/.exec(label)?.[1];
    if (claimed) for (const unit of units) expect(unit).toBe(claimed);
    expect(label).toBe("Inference Time");
  });
});
