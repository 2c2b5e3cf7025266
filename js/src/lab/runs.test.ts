import { describe, expect, it } from "vitest";

import { RunRow } from "./messages";
import { basename, formatDuration, formatMedian, RunsList } from "./runs";

const HOSTILE = "<img src=x onerror=alert(1)>";

function row(over: Partial<RunRow> = {}): RunRow {
  return {
    id: "r1", kind: "profile", model: `/m/${HOSTILE}.onnx`, runtime: "ONNX Runtime", target: "localhost",
    device: "cpu", state: "succeeded", fraction: 1, phase: "", median_ms: 1.23456, started: 1_700_000_000,
    duration_s: 2.5, error: null, artifacts: { report: "/m/r.dld-report.json" },
    command: "dld profile '/m/x y.onnx' -o /m/r.dld-report.json", unsaid: [], live: false, points: [], ...over,
  };
}

function list(): { runs: RunsList; calls: string[][] } {
  const calls: string[][] = [];
  const runs = new RunsList({
    cancel: (id) => calls.push(["cancel", id]),
    open: (id, name, point) => calls.push(["open", id, name, String(point)]),
    copy: (text) => calls.push(["copy", text]),
  });
  return { runs, calls };
}

function click(root: HTMLElement, label: string): void {
  [...root.querySelectorAll("button")].find((b) => b.textContent?.startsWith(label))?.click();
}

describe("runs list", () => {
  it("shows names and commands as text, copies the command, opens the report", () => {
    const { runs, calls } = list();
    runs.setRows([row()]);
    expect(runs.node.querySelector("img")).toBeNull();
    expect(runs.node.querySelector(".dld-Runs-model")?.textContent).toBe(`${HOSTILE}.onnx`);
    expect(runs.node.querySelector(".dld-Runs-commandText")?.textContent).toBe(row().command);
    expect(runs.node.querySelector(".dld-Runs-meta")?.textContent).toContain("median 1.235 ms");
    click(runs.node, "Copy command");
    click(runs.node, "Open report");
    expect(calls).toEqual([["copy", row().command], ["open", "r1", "report", "null"]]);
    expect(runs.node.textContent).not.toContain("Cancel");
  });

  it("cancels a live run and keeps an unchanged row's element", () => {
    const { runs, calls } = list();
    const live = row({ id: "r2", state: "running", live: true, fraction: 0.4, phase: "measuring" });
    runs.setRows([live, row()]);
    const kept = runs.node.querySelector('[data-run="r1"]');
    click(runs.node.querySelector('[data-run="r2"]') as HTMLElement, "Cancel");
    expect(calls).toEqual([["cancel", "r2"]]);
    runs.setRows([{ ...live, fraction: 0.6 }, row()]);
    expect(runs.node.querySelector('[data-run="r1"]')).toBe(kept);
    expect((runs.node.querySelector(".dld-Runs-progressFill") as HTMLElement).style.width).toBe("60%");
  });

  it("unfolds a sweep's points, each opening its own report", () => {
    const { runs, calls } = list();
    const point = row({ id: "000-m-b1-cpu-fp32", kind: "point", command: "", artifacts: { report: "/s/p.json" } });
    runs.setRows([row({ id: "s1", kind: "sweep", artifacts: { folder: "/s" }, points: [point] })]);
    expect(runs.node.querySelectorAll(".dld-Runs-points").length).toBe(0);
    click(runs.node, "Points (1)");
    click(runs.node.querySelector(".dld-Runs-points") as HTMLElement, "Open report");
    expect(calls).toEqual([["open", "s1", "report", "000-m-b1-cpu-fp32"]]);
  });

  it("says why a run failed, not that a cancelled run was cancelled", () => {
    const { runs } = list();
    runs.setRows([
      row({ id: "f", state: "failed", error: "the worker was killed by SIGKILL" }),
      row({ id: "c", state: "cancelled", error: "cancelled" }),
    ]);
    expect(runs.node.querySelector('[data-run="f"] .dld-Runs-error')?.textContent).toContain("SIGKILL");
    expect(runs.node.querySelector('[data-run="c"]')?.textContent).not.toContain("cancelledcancelled");
    expect(runs.node.querySelectorAll('[data-run="c"] .dld-Runs-error, [data-run="c"] .dld-Runs-unsaid').length).toBe(0);
  });

  it("says what no command expresses, and formats", () => {
    const { runs } = list();
    runs.setRows([row({ command: "", unsaid: ["Convert to FP16: in-process work that no dld command runs"] })]);
    expect(runs.node.querySelector(".dld-Runs-command")).toBeNull();
    expect(runs.node.querySelector(".dld-Runs-unsaid")?.textContent).toContain("no dld command");
    expect([basename("/a/b.onnx"), formatDuration(75), formatMedian(12.345)]).toEqual(["b.onnx", "1 min 15 s", "median 12.3 ms"]);
  });
});
