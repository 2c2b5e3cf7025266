// The Model Inputs view in jsdom: a card per input with its name as text, the preset's fields filled and sent back
// edited on Apply, a preset choice refilling the fields, Load sending the path, zeros sent at once, the video hint
// shown instead of a slider, and cleanup removing every listener.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel, installCanvasStandIns, installListenerCensus, ListenerCensus } from "../../common/testing";
import widget, { parseList } from "./model_inputs";

const unit = { name: "unit", layout: "NCHW", height: 96, width: 96, channels: "RGB", resize: "crop", scale: 1 / 255, mean: [0], std: [1] };
const imagenet = { ...unit, name: "imagenet", mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };
const entry = (over: Record<string, unknown> = {}) => ({
  name: "<b>input</b>", dtype: "float32", shape: ["?", 3, 96, 96], kind: "image", path: "cat.png", label: "cat.png",
  frame: 0, frames: null, preset: imagenet, presets: { imagenet, unit }, error: "", stats: "float32 [1, 3, 96, 96]",
  thumb: null, ...over,
});

describe("model inputs view", () => {
  let census: ListenerCensus;
  beforeEach(() => {
    census = installListenerCensus();
    installCanvasStandIns();
  });
  afterEach(() => vi.restoreAllMocks());

  it("edits a preset, loads a path, sends zeros and cleans up", () => {
    const model = new FakeModel();
    model.state = { inputs: [entry()], thumbs: null, video_hint: "" };
    const before = census.total();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(el.querySelector(".dld-mi-head")?.textContent).toBe("<b>input</b> · float32 [?, 3, 96, 96]");
    expect(el.querySelector("b")).toBeNull();
    const field = (k: string) => el.querySelector(`[data-field="${k}"]`) as HTMLInputElement;
    expect(field("mean").value).toBe("0.485, 0.456, 0.406");
    const pick = el.querySelector(".dld-mi-preset-name") as HTMLSelectElement;
    pick.value = "unit";
    pick.dispatchEvent(new Event("change", { bubbles: true }));
    expect(field("mean").value).toBe("0");
    field("height").value = "64";
    (el.querySelector(".dld-mi-apply") as HTMLButtonElement).click();
    expect(model.sent[0]).toMatchObject({ kind: "preset", input: "<b>input</b>", fields: { name: "unit", height: 64, mean: [0] } });
    (el.querySelector(".dld-mi-path") as HTMLInputElement).value = "dog.jpg";
    (el.querySelector(".dld-mi-load") as HTMLButtonElement).click();
    expect(model.sent[1]).toEqual({ kind: "source", input: "<b>input</b>", source: "image", path: "dog.jpg" });
    const kind = el.querySelector(".dld-mi-kind") as HTMLSelectElement;
    kind.value = "zeros";
    kind.dispatchEvent(new Event("change", { bubbles: true }));
    expect(model.sent[2]).toMatchObject({ kind: "source", source: "zeros" });
    const path = el.querySelector(".dld-mi-path") as HTMLInputElement;
    expect(path.disabled).toBe(true); // a generated kind reads no file, and the field says so
    expect(path.title).toContain("choose image, npy or video");
    kind.value = "npy";
    kind.dispatchEvent(new Event("change", { bubbles: true }));
    expect(path.disabled).toBe(false);
    cleanup();
    expect(census.total()).toBe(before);
    expect(model.count()).toBe(0);
  });

  it("shows the video hint instead of a slider when no reader is installed", () => {
    const model = new FakeModel();
    model.state = { inputs: [entry({ kind: "video", error: "needs a video reader" })], thumbs: null, video_hint: "pip install 'imageio[pyav]'" };
    const el = document.createElement("div");
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(el.querySelector(".dld-mi-frame")).toBeNull();
    expect(el.querySelector(".dld-mi-hint")?.textContent).toContain("imageio[pyav]");
    model.state.video_hint = "";
    cleanup();
    const el2 = document.createElement("div");
    const cleanup2 = widget.render({ model, el: el2 } as never) as () => void;
    expect(el2.querySelector(".dld-mi-frame")).not.toBeNull();
    cleanup2();
    expect(parseList("0.5, 1  2")).toEqual([0.5, 1, 2]);
  });

  it("plays a video: Play and Step frame ask the kernel, each new tick while playing asks for one next frame", async () => {
    const model = new FakeModel();
    const video = (over: Record<string, unknown>) => entry({ kind: "video", path: "clip.mp4", ...over });
    model.state = { inputs: [video({ playing: false, tick: 0 })], thumbs: null, video_hint: "" };
    const el = document.createElement("div");
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(model.sent).toEqual([]);
    (el.querySelector(".dld-mi-play") as HTMLButtonElement).click();
    (el.querySelector(".dld-mi-step-frame") as HTMLButtonElement).click();
    expect(model.sent).toEqual([
      { kind: "video", input: "<b>input</b>", action: "play" },
      { kind: "video", input: "<b>input</b>", action: "step" },
    ]);
    model.state.inputs = [video({ playing: true, tick: 1, frame: 1 })];
    model.emit("change:inputs");
    await Promise.resolve();  // redrawn once per burst
    expect(model.sent[2]).toEqual({ kind: "video", input: "<b>input</b>", action: "next" });
    model.emit("change:thumbs");  // the same tick redrawn: no second request
    await Promise.resolve();
    expect(model.sent.length).toBe(3);
    expect(el.querySelector(".dld-mi-play")?.textContent).toContain("Pause");
    (el.querySelector(".dld-mi-play") as HTMLButtonElement).click();
    expect(model.sent[3]).toEqual({ kind: "video", input: "<b>input</b>", action: "pause" });
    model.state.inputs = [video({ playing: false, tick: 2, frame: 2 })];  // paused (a breakpoint): no next
    model.emit("change:inputs");
    await Promise.resolve();
    expect(model.sent.length).toBe(4);
    cleanup();
  });
});
