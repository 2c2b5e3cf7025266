/**
 * The Model Inputs window anywidget (Python half: dld_jupyter/widgets/analysis/model_inputs.py, which loads every
 * choice with activities/analysis/inputs.py). One card per graph input: its name, dtype and shape; a source chooser
 * (image, NPY, random, zeros, video) with the file's path and Load; the image preset with every field visible and
 * editable (Apply sends them); a video's frame slider and its Play / Pause / Step frame buttons (playing is the
 * kernel's: one pass per frame, each `tick` it publishes asks for the next until a breakpoint or the end stops it),
 * or the kernel's hint when no video reader is installed; the
 * thumbnail (an NPY that is an image too), a statistics line and the loading error, all as text. Synced state:
 * `inputs`, `thumbs`, `video_hint`; the page keeps only what is being typed until Load/Apply/the slider sends it.
 */
import type { RenderProps } from "@anywidget/types";
import "./model_inputs.css";
import { element, redrawOn } from "./dom";

interface InputsModel {
  inputs: InputEntry[];
  thumbs: DataView | null;
  video_hint: string;
}

export interface PresetFields {
  name: string;
  layout: string;
  height: number;
  width: number;
  channels: string;
  resize: string;
  scale: number;
  mean: number[];
  std: number[];
}

export interface InputEntry {
  name: string;
  dtype: string;
  shape: (number | string)[];
  kind: string;
  path: string;
  label: string;
  frame: number;
  frames: number | null;
  preset: PresetFields | null;
  presets: Record<string, PresetFields>;
  error: string;
  stats: string;
  thumb: { offset: number; height: number; width: number } | null;
  playing?: boolean;
  tick?: number;
}

const KINDS: [string, string][] = [["image", "Image (PNG/JPG)"], ["npy", "NumPy (NPY)"], ["random", "Random"], ["zeros", "Zeros"], ["video", "Video"]];
const FILE_KINDS = new Set(["image", "npy", "video"]);

/** The path field is for the file kinds only: greyed out otherwise, saying why (it looked broken with no hint). */
export function pathState(path: HTMLInputElement, kind: string): void {
  path.disabled = !FILE_KINDS.has(kind);
  path.title = path.disabled
    ? `"${kind}" inputs are generated, not read from a file: choose image, npy or video to give a path`
    : "A file path, relative to the notebook's folder; then Load";
  path.placeholder = path.disabled ? `no file for ${kind} inputs` : "file path (from the notebook's folder)";
}

/** Numbers typed as "0.485, 0.456, 0.406" → [0.485, 0.456, 0.406]; NaN kept so the kernel names the bad field. */
export function parseList(text: string): number[] {
  return text.split(/[,\s]+/).filter((t) => t.length > 0).map(Number);
}

/** The preset fields as the kernel wants them, from the form's values. */
export function readPreset(base: PresetFields, values: Record<string, string>): PresetFields {
  return {
    ...base,
    height: Number(values.height), width: Number(values.width), channels: values.channels, resize: values.resize,
    scale: Number(values.scale), mean: parseList(values.mean), std: parseList(values.std),
  };
}

function choice(className: string, options: [string, string][], value: string): HTMLSelectElement {
  const select = element("select", className);
  for (const [v, label] of options) {
    const option = element("option", "", label);
    option.value = v;
    select.appendChild(option);
  }
  select.value = value;
  return select;
}

type Send = (message: Record<string, unknown>) => void;
const FIELDS = ["height", "width", "channels", "resize", "scale", "mean", "std"];

/** Put preset `p`'s values in the card's preset fields. */
function fill(box: Element, p: PresetFields): void {
  const set = (key: string, value: string) => {
    const input = box.querySelector(`[data-field="${key}"]`) as HTMLInputElement | null;
    if (input) input.value = value;
  };
  set("height", String(p.height));
  set("width", String(p.width));
  set("channels", p.channels);
  set("resize", p.resize);
  set("scale", String(p.scale));
  set("mean", p.mean.join(", "));
  set("std", p.std.join(", "));
}

function presetForm(entry: InputEntry): HTMLElement {
  const box = element("div", "dld-mi-preset");
  const preset = entry.preset as PresetFields;
  const pick = choice("dld-mi-preset-name", Object.keys(entry.presets).map((n) => [n, n]), preset.name);
  const label = element("label", "dld-mi-field", "Preset ");
  label.appendChild(pick);
  box.appendChild(label);
  const inputs: Record<string, HTMLInputElement | HTMLSelectElement> = {
    channels: choice("dld-mi-channels", [["RGB", "RGB"], ["BGR", "BGR"], ["GRAY", "GRAY"]], preset.channels),
    resize: choice("dld-mi-resize", [["crop", "resize + centre crop"], ["stretch", "stretch"]], preset.resize),
  };
  for (const key of FIELDS) {
    const input = inputs[key] ?? element("input", key === "mean" || key === "std" ? "dld-mi-list" : "dld-mi-num");
    const field = element("label", "dld-mi-field", `${key} `);
    input.dataset.field = key;
    field.appendChild(input);
    box.appendChild(field);
  }
  fill(box, preset);
  box.appendChild(element("button", "dld-mi-apply", "Apply"));
  return box;
}

function thumbCanvas(entry: InputEntry, thumbs: DataView | null): HTMLCanvasElement | null {
  const t = entry.thumb;
  if (!t || !thumbs) return null;
  const canvas = element("canvas", "dld-mi-thumb");
  canvas.width = t.width;
  canvas.height = t.height;
  const ctx = canvas.getContext("2d");
  const size = t.width * t.height * 4;
  if (ctx && t.offset + size <= thumbs.byteLength) {
    const image = ctx.createImageData(t.width, t.height);
    image.data.set(new Uint8ClampedArray(thumbs.buffer, thumbs.byteOffset + t.offset, size));
    ctx.putImageData(image, 0, 0);
  }
  return canvas;
}

function card(entry: InputEntry, thumbs: DataView | null, hint: string): HTMLElement {
  const box = element("div", "dld-mi-input");
  box.dataset.input = entry.name;
  box.appendChild(element("div", "dld-mi-head", `${entry.name} · ${entry.dtype} [${entry.shape.join(", ")}]`));
  const row = element("div", "dld-mi-row");
  const thumb = thumbCanvas(entry, thumbs);
  if (thumb) row.appendChild(thumb);
  const side = element("div", "dld-mi-side");
  const kind = choice("dld-mi-kind", KINDS, entry.kind === "array" ? "npy" : entry.kind);
  const path = element("input", "dld-mi-path");
  path.value = entry.path;
  const load = element("button", "dld-mi-load", "Load");
  pathState(path, kind.value);
  const chooser = element("div", "dld-mi-chooser");
  chooser.append(kind, path, load);
  side.append(chooser, element("div", "dld-mi-label", entry.label));
  if (entry.stats) side.appendChild(element("div", "dld-mi-stats", entry.stats));
  if (entry.error) side.appendChild(element("div", "dld-mi-error", entry.error));
  if (entry.kind === "video" || kind.value === "video") {
    if (hint) side.appendChild(element("div", "dld-mi-hint", hint));
    else {
      const slider = element("input", "dld-mi-frame");
      slider.type = "range";
      slider.min = "0";
      slider.max = String(Math.max(0, (entry.frames ?? entry.frame + 100) - 1));
      slider.value = String(entry.frame);
      side.append(slider, element("span", "dld-mi-frame-no", `frame ${entry.frame}`));
      const controls = element("div", "dld-mi-video");
      const play = element("button", "dld-mi-play", entry.playing ? "Pause" : "▶ Play");
      play.title = entry.playing ? "Pause the video (the analysis keeps its stop)" : "Run the model on each frame in turn; a breakpoint pauses";
      const step = element("button", "dld-mi-step-frame", "Step frame");
      step.title = "Finish the pass paused at a breakpoint, else run the next frame";
      controls.append(play, step);
      side.appendChild(controls);
    }
  }
  if (entry.preset && (entry.kind === "image" || entry.kind === "video")) side.appendChild(presetForm(entry));
  row.appendChild(side);
  box.appendChild(row);
  return box;
}

/** A click, change or input inside a card: what it asks of the kernel (through `send`), or what it changes on the page. */
export function onCardEvent(type: string, target: HTMLElement, entries: InputEntry[], send: Send): void {
  const box = target.closest(".dld-mi-input") as HTMLElement | null;
  const entry = entries.find((e) => e.name === box?.dataset.input);
  if (!box || !entry) return;
  const kind = box.querySelector(".dld-mi-kind") as HTMLSelectElement;
  const path = box.querySelector(".dld-mi-path") as HTMLInputElement;
  const sendSource = () => send({ kind: "source", input: entry.name, source: kind.value, path: path.value });
  const is = (name: string) => target.classList.contains(name);
  if (type === "click" && is("dld-mi-load")) sendSource();
  else if (type === "change" && is("dld-mi-kind")) {
    pathState(path, kind.value);
    if (!FILE_KINDS.has(kind.value)) sendSource();
  } else if (type === "change" && is("dld-mi-preset-name")) {
    fill(box, entry.presets[(target as HTMLSelectElement).value]);
  } else if (type === "click" && is("dld-mi-apply")) {
    const name = (box.querySelector(".dld-mi-preset-name") as HTMLSelectElement).value;
    const values: Record<string, string> = {};
    box.querySelectorAll<HTMLInputElement>("[data-field]").forEach((i) => (values[i.dataset.field as string] = i.value));
    send({ kind: "preset", input: entry.name, fields: readPreset({ ...(entry.presets[name] ?? entry.preset), name } as PresetFields, values) });
  } else if (type === "click" && is("dld-mi-play")) {
    send({ kind: "video", input: entry.name, action: entry.playing ? "pause" : "play" });
  } else if (type === "click" && is("dld-mi-step-frame")) {
    send({ kind: "video", input: entry.name, action: "step" });
  } else if (type === "input" && is("dld-mi-frame")) {
    (box.querySelector(".dld-mi-frame-no") as HTMLElement).textContent = `frame ${(target as HTMLInputElement).value}`;
  } else if (type === "change" && is("dld-mi-frame")) {
    send({ kind: "frame", input: entry.name, frame: Number((target as HTMLInputElement).value) });
  }
}

/** The inputs playing whose `tick` this page has not answered yet: each gets one "next" (the kernel runs one frame). */
export function nextTicks(entries: InputEntry[], seen: Map<string, number>): string[] {
  const due = entries.filter((e) => e.playing && e.tick !== undefined && seen.get(e.name) !== e.tick);
  due.forEach((e) => seen.set(e.name, e.tick as number));
  return due.map((e) => e.name);
}

function render({ model, el }: RenderProps<InputsModel>): () => void {
  const root = element("div", "dld-mi");
  el.appendChild(root);
  const send: Send = (message) => model.send(message);
  const seen = new Map<string, number>();
  const draw = (): void => {
    const entries = model.get("inputs") ?? [];
    nextTicks(entries, seen).forEach((name) => send({ kind: "video", input: name, action: "next" }));
    root.replaceChildren(...entries.map((e) => card(e, model.get("thumbs"), model.get("video_hint"))));
    if (!entries.length) root.appendChild(element("div", "dld-mi-empty", "The model has no input that needs data."));
  };
  const onEvent = (event: Event): void => onCardEvent(event.type, event.target as HTMLElement, model.get("inputs") ?? [], send);
  const domEvents = ["click", "change", "input"];
  domEvents.forEach((type) => root.addEventListener(type, onEvent));
  const detach = redrawOn(model, ["change:inputs", "change:thumbs", "change:video_hint"], root, draw);
  return () => {
    domEvents.forEach((type) => root.removeEventListener(type, onEvent));
    detach();
  };
}

export default { render };
