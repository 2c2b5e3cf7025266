// Mounts the editor panels in jsdom with every panel filled, clicks through, unmounts, checks no listener is left.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import widget from "./index";

type Fn = (...args: unknown[]) => void;

class FakeModel {
  handlers = new Map<string, Set<Fn>>();
  sent: Record<string, unknown>[] = [];
  state: Record<string, unknown> = {
    selection: ["n0"], tab: "parameters", height: "500px",
    params: {
      mode: "nodes", ids: ["n0"], name: "conv1", title: "Conv", op_type: "Conv", domain: "", since_version: 11,
      doc: "The convolution operator", attributes: [
        { name: "strides", type: "INTS", required: false, set: true, mixed: false, text: "[2, 2]", default_text: "", editable: true, list: true, doc: "" },
      ],
      defaults: [
        { name: "group", type: "INT", required: false, set: false, mixed: false, text: "", default_text: "1", editable: true, list: false, doc: "", choices: null },
        { name: "to", type: "INT", required: false, set: false, mixed: false, text: "", default_text: "1", editable: true, list: false, doc: "", choices: [["1", "float"], ["10", "float16"]] },
      ],
    },
    init_items: [{ id: "v1", name: "W", dtype: "float", shape: [4, 3], size: 12, external: false, location: null, users: 1 }],
    inits: {
      node: { id: "n0", name: "conv1", op_type: "Conv", terminals: [
        { index: 1, name: "W", state: "initializer", value_id: "v1", value_name: "W", optional: false },
        { index: 2, name: "B", state: "free", value_id: null, value_name: null, optional: true },
      ] },
      dtypes: ["float", "int8"], generators: { float: ["normal", "zeros"], int8: ["zeros"] }, generator_labels: { normal: "Normal", zeros: "Zeros" },
      model_dir: null, previews: { v1: "[1.0]" },
    },
    tensor: { open: true, target: { value_id: "v1", node_id: null, attribute: null }, name: "W", dtype: "float", shape: [4, 3], size: 12,
      editable: true, external: null, text: "[[1.0]]", sparse: { values: "[1.0]", indices: "[0]", dense_shape: "[1]" }, targets: ["float16"], is_initializer: true },
    checks: { running: true, lint_running: false, automatic: true, checked: true, stale: false,
      items: [{ severity: "error", message: "conv1: X is not connected", node_id: "n0", node_name: "conv1", fix_hint: "", source: "structure" }] },
    errors: { "attr:strides": { message: "At character 5: unexpected 'x'", excerpt: "[2, x]", caret: 4 } },
    notice: { kind: "warning", text: "12 values lost precision" },
  };
  get(k: string) { return this.state[k]; }
  set(k: string, v: unknown) { this.state[k] = v; this.emit(`change:${k}`); }
  save_changes() {}
  send(msg: Record<string, unknown>) { this.sent.push(msg); }
  on(e: string, f: Fn) { if (!this.handlers.has(e)) this.handlers.set(e, new Set()); this.handlers.get(e)!.add(f); }
  off(e: string, f: Fn) { this.handlers.get(e)?.delete(f); }
  emit(e: string) { this.handlers.get(e)?.forEach((f) => f()); }
  count() { let n = 0; this.handlers.forEach((s) => (n += s.size)); return n; }
}

let live = 0;
const realAdd = EventTarget.prototype.addEventListener;
const realRemove = EventTarget.prototype.removeEventListener;

describe("editor panels lifecycle", () => {
  beforeEach(() => {
    live = 0;
    vi.spyOn(EventTarget.prototype, "addEventListener").mockImplementation(function (this: EventTarget, type: string, fn: unknown, opts?: unknown) {
      if (!new Error().stack?.includes("nwsapi")) live += 1;
      return realAdd.call(this, type, fn as EventListener, opts as AddEventListenerOptions);
    });
    vi.spyOn(EventTarget.prototype, "removeEventListener").mockImplementation(function (this: EventTarget, type: string, fn: unknown, opts?: unknown) {
      live -= 1;
      return realRemove.call(this, type, fn as EventListener, opts as EventListenerOptions);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it("renders every panel, sends intents and removes every listener on cleanup", () => {
    const model = new FakeModel();
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = widget.render({ model: model as never, el, experimental: {} as never });
    expect(el.querySelector(".dld-ed-caret")?.textContent).toBe("[2, x]\n    ^");
    expect(el.querySelectorAll(".dld-ed-check").length).toBe(1);
    expect(el.querySelector(".dld-ed-notice")?.textContent).toContain("precision");
    const input = el.querySelector<HTMLInputElement>('[data-key="attr:group"]')!;
    input.value = "2";
    input.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject(
      { kind: "request", action: "set_attr", args: { name: "group", text: "2", key: "attr:group" } });
    const menu = el.querySelector<HTMLSelectElement>('select[data-key="attr:to"]')!;
    expect(menu.options[0].textContent).toBe("default: float");
    menu.value = "10";
    menu.dispatchEvent(new Event("change"));
    expect(model.sent.at(-1)).toMatchObject({ kind: "request", action: "set_attr", args: { name: "to", text: "10" } });
    el.querySelector<HTMLElement>(".dld-ed-check")!.dispatchEvent(new MouseEvent("dblclick"));
    expect(model.sent.at(-1)).toEqual({ kind: "request", request: 3, action: "focus", args: { node_id: "n0" } });
    model.set("tab", "initializers");
    el.querySelector<HTMLButtonElement>('[data-panel="initializers"] .dld-ed-bar .dld-ed-btn')!.click();
    expect(el.querySelector(".dld-ed-create")).not.toBeNull();
    const name = el.querySelector<HTMLInputElement>('.dld-ed-create [data-field="name"]')!;
    name.value = "typed";
    name.dispatchEvent(new Event("input"));
    model.set("errors", { create: { message: "refused", excerpt: "", caret: -1 } });
    expect(el.querySelector<HTMLInputElement>('.dld-ed-create [data-field="name"]')!.value).toBe("typed");
    expect(el.querySelector('[data-panel="initializers"] .dld-ed-error')?.textContent).toContain("refused");
    model.set("tab", "tensor");
    model.set("errors", {});
    model.set("checks", { ...(model.state.checks as object), running: false });
    expect(live).toBeGreaterThan(0);
    expect(model.count()).toBeGreaterThan(0);
    cleanup();
    expect(live).toBe(0);
    expect(model.count()).toBe(0);
    expect(el.children.length).toBe(0);
  });

  it("marks analysis overrides and reverts them from the field (seed 001 §4.3)", () => {
    const model = new FakeModel();
    const params = model.state.params as { attributes: Record<string, unknown>[] };
    params.attributes = [{ ...params.attributes[0], override: true, text: "[1, 1]" }];
    model.state.tensor = { ...(model.state.tensor as object), override: true };
    model.state.errors = {};
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = widget.render({ model: model as never, el, experimental: {} as never });
    const row = el.querySelector('[data-attr="strides"]')!;
    expect(row.querySelector(".dld-ed-override")?.textContent).toBe("analysis override");
    row.querySelector<HTMLButtonElement>(".dld-ed-revert-override")!.click();
    expect(model.sent.at(-1)).toMatchObject({ action: "revert_override", args: { name: "strides", key: "attr:strides" } });
    model.set("tab", "tensor");
    expect(el.querySelector('[data-panel="tensor"] .dld-ed-override')).not.toBeNull();
    el.querySelector<HTMLButtonElement>('[data-panel="tensor"] .dld-ed-revert-override')!.click();
    expect(model.sent.at(-1)).toMatchObject({ action: "revert_override", args: { key: "tensor" } });
    cleanup();
  });

  it("keeps a field being typed in when the kernel answers an earlier edit of the same input", () => {
    const model = new FakeModel();
    const io = { mode: "io", ids: ["i:x"], kind: "input", name: "x", dtype: "", shape: "", dtypes: ["float", "int64"] };
    model.state.params = io;
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = widget.render({ model: model as never, el, experimental: {} as never });
    const dtype = el.querySelector(".dld-ed-io-dtype") as HTMLSelectElement;
    dtype.value = "int64";
    dtype.dispatchEvent(new Event("change"));
    const shape = el.querySelector(".dld-ed-io-shape") as HTMLInputElement;
    shape.focus();
    shape.value = "2, 3"; // typed before the element type's answer arrives
    model.set("params", { ...io, dtype: "int64" }); // the answer: the panel is drawn again
    const again = el.querySelector(".dld-ed-io-shape") as HTMLInputElement;
    expect(again).not.toBe(shape);
    expect(again.value).toBe("2, 3");
    expect(document.activeElement).toBe(again);
    again.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toMatchObject({ kind: "request", action: "set_io_type", args: { shape: "2, 3" } });
    model.set("params", { ...io, ids: ["i:y"], name: "y" }); // another input shown: nothing carried over
    expect((el.querySelector(".dld-ed-io-shape") as HTMLInputElement).value).toBe("");
    cleanup();
    el.remove();
  });

  it("keeps the focus in a field entered but not typed in yet when the kernel answers an earlier edit", () => {
    const model = new FakeModel();
    const io = { mode: "io", ids: ["o:picked"], kind: "output", name: "picked", dtype: "", shape: "", dtypes: ["float", "int64"] };
    model.state.params = io;
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = widget.render({ model: model as never, el, experimental: {} as never });
    const dtype = el.querySelector(".dld-ed-io-dtype") as HTMLSelectElement;
    dtype.value = "float";
    dtype.dispatchEvent(new Event("change"));
    (el.querySelector(".dld-ed-io-shape") as HTMLInputElement).focus(); // clicked into, nothing typed yet
    model.set("params", { ...io, dtype: "float" }); // the element type's answer redraws the panel
    const shape = el.querySelector(".dld-ed-io-shape") as HTMLInputElement;
    expect(document.activeElement).toBe(shape); // what is typed now lands in the field
    shape.value = "2, 3";
    shape.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(model.sent.at(-1)).toMatchObject({ kind: "request", action: "set_io_type", args: { shape: "2, 3" } });
    (el.querySelector(".dld-ed-io-dtype") as HTMLSelectElement).focus(); // a select keeps the focus too
    model.set("params", { ...io, dtype: "float", shape: "2, 3" });
    expect(document.activeElement).toBe(el.querySelector(".dld-ed-io-dtype"));
    model.set("params", { ...io, ids: ["i:data"], name: "data" }); // another value shown: the focus stays out
    expect(el.contains(document.activeElement)).toBe(false);
    cleanup();
    el.remove();
  });
});
