import { describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};

describe("Start Activity's tab", () => {
  it("opens on the model given, else an .onnx selected, in the launcher's, model's or file browser's folder", async () => {
    const { activityTab } = await import("./activity_tab");
    // the launcher: its folder, no model even when a report is selected
    expect(activityTab({ cwd: "work" }, "work/a.dld-report.json", "elsewhere")).toEqual({
      record: { kind: "activity", file: "", activity: "profile" },
      folder: "work",
    });
    // the context menu on a model (or the palette with one selected): that model, in its folder
    expect(activityTab({}, "models/resnet.ONNX", "")).toEqual({
      record: { kind: "activity", file: "models/resnet.ONNX", activity: "profile" },
      folder: "models",
    });
    // nothing selected: the file browser's folder; an activity asked by name, an unknown one falls back to profile
    expect(activityTab({ activity: "export" }, null, "shown")).toEqual({
      record: { kind: "activity", file: "", activity: "export" },
      folder: "shown",
    });
    expect(activityTab({ path: "x/m.onnx", activity: "analyse" }, "y/n.onnx", "").record).toEqual({
      kind: "activity",
      file: "x/m.onnx",
      activity: "profile",
    });
  }, 60_000); // the first import of @jupyterlab/* modules takes seconds on a loaded machine
});
