/**
 * The Channel Inspector anywidget (Python half: dld_jupyter/widgets/analysis/channel_inspector.py).
 *
 * Synced state (Python knows it): `title`, `message`, `meta` (layout, encoding, stats, defaults), `data` (the values
 * as one binary buffer), `shift` and `scale` (the fields and Reset write them back); the pop-out's `detail` with its
 * per-channel `histograms` and `histogram_data`; `poppable` (Pop out sends {kind: "pop_out"}). Page-only state:
 * which tiles are painted, the pointer's readout, the scroll. render() builds the parts (the bar: controls.ts; the
 * tiles: tiles.ts, in cards with histograms: cards.ts, histograms.ts) and wires them through two tables, the page's
 * events and the model's; a burst of synced changes (a new tensor sends meta and data together) rebuilds once.
 */
import type { RenderProps } from "@anywidget/types";
import "./inspector.css";
import { element } from "../dom";
import { Controls, typedValue } from "./controls";
import { HistogramSet } from "./histograms";
import { statsLine } from "./labels";
import { valuesOf } from "./paint";
import { TileGrid } from "./tiles";
import { InspectorModel, metaOf } from "./types";

export { statsLine } from "./labels";

function render({ model, el }: RenderProps<InspectorModel>): () => void {
  const root = element("div", "dld-ci");
  const controls = new Controls();
  const grid = new TileGrid(root, () => ({ shift: model.get("shift"), scale: model.get("scale") }));
  root.append(controls.bar, controls.note, grid.element);
  el.appendChild(root);

  let rebuildQueued = false;
  let closed = false;

  const rebuild = (): void => {
    rebuildQueued = false;
    if (closed) return;
    const meta = metaOf(model.get("meta"));
    controls.title.textContent = model.get("title");
    if (!meta) {
      grid.clear();
      controls.note.textContent = model.get("message");
      return;
    }
    const detail = Boolean(model.get("detail"));
    const histograms = detail ? HistogramSet.of(model.get("histograms"), model.get("histogram_data")) : null;
    controls.note.textContent = statsLine(meta, histograms?.tiles);
    grid.show(meta, valuesOf(model.get("data"), meta.encoding), detail, histograms);
  };
  const queueRebuild = (): void => {
    if (rebuildQueued) return;
    rebuildQueued = true;
    queueMicrotask(rebuild);
  };

  const showFields = (): void => controls.showMapping(model.get("shift"), model.get("scale"));
  const onField = (name: "shift" | "scale", input: HTMLInputElement) => (): void => {
    const v = typedValue(input.value);
    if (v === null) return showFields();
    model.set(name, v);
    model.save_changes();
    showFields();
    grid.recolour();
  };
  const onReset = (): void => {
    const meta = metaOf(model.get("meta"));
    if (!meta) return;
    model.set("shift", meta.default_shift);
    model.set("scale", meta.default_scale);
    model.save_changes();
    showFields();
    grid.recolour();
  };
  const onMapping = (): void => {
    showFields();
    grid.recolour();
  };
  const onPointer = (event: MouseEvent): void => {
    const text = grid.readoutAt(event);
    if (text !== null) controls.readout.textContent = text;
  };
  const onLeave = (): void => {
    controls.readout.textContent = "";
  };
  const onPopOut = (): void => model.send({ kind: "pop_out" });
  const onPoppable = (): void => {
    controls.popOut.hidden = !model.get("poppable");
  };
  const onHeight = (): void => {
    grid.element.style.height = model.get("height");
  };
  const onTitle = (): void => {
    controls.title.textContent = model.get("title");
    if (!metaOf(model.get("meta"))) controls.note.textContent = model.get("message");
  };

  const domEvents: [EventTarget, string, EventListener][] = [
    [controls.shift.input, "change", onField("shift", controls.shift.input)],
    [controls.scale.input, "change", onField("scale", controls.scale.input)],
    [controls.reset, "click", onReset],
    [controls.popOut, "click", onPopOut],
    [grid.element, "mousemove", onPointer as EventListener],
    [grid.element, "mouseleave", onLeave],
  ];
  const modelEvents: [string, () => void][] = [
    ["change:data", queueRebuild], ["change:meta", queueRebuild], ["change:shift", onMapping],
    ["change:scale", onMapping], ["change:title", onTitle], ["change:message", onTitle], ["change:height", onHeight],
    ["change:histogram_data", queueRebuild], ["change:detail", queueRebuild], ["change:poppable", onPoppable],
  ];
  domEvents.forEach(([target, type, fn]) => target.addEventListener(type, fn));
  modelEvents.forEach(([name, fn]) => model.on(name, fn));
  onHeight();
  onPoppable();
  showFields();
  rebuild();
  return () => {
    closed = true;
    grid.dispose();
    domEvents.forEach(([target, type, fn]) => target.removeEventListener(type, fn));
    modelEvents.forEach(([name, fn]) => model.off(name, fn));
    root.remove();
  };
}

export default { render };
