// Mounts the canvas in jsdom, feeds it a snapshot and a patch, unmounts it, and checks every listener is gone.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import widget from "./index";
import type { GraphSnapshot, NodeData } from "../../common/protocol";

type Fn = (...args: unknown[]) => void;

class FakeModel {
  handlers = new Map<string, Set<Fn>>();
  state: Record<string, unknown> = { selection: [], color_scheme: "default", show_grid: true, height: "400px", title: "t" };
  sent: unknown[] = [];
  get(k: string) { return this.state[k]; }
  set(k: string, v: unknown) { this.state[k] = v; }
  save_changes() {}
  send(msg: unknown) { this.sent.push(msg); }
  on(e: string, f: Fn) { if (!this.handlers.has(e)) this.handlers.set(e, new Set()); this.handlers.get(e)!.add(f); }
  off(e: string, f: Fn) { this.handlers.get(e)?.delete(f); }
  emit(e: string, ...args: unknown[]) { this.handlers.get(e)?.forEach((f) => f(...args)); }
  count() { let n = 0; this.handlers.forEach((s) => (n += s.size)); return n; }
}

function node(id: string, kind: NodeData["kind"] = "op"): NodeData {
  return {
    id, name: id, kind, op_type: "Relu", domain: "", category: "Activation", composite: false,
    inputs: [{ index: 0, name: "X", optional: false, variadic: false, state: "linked", value: "a" }],
    outputs: [{ index: 0, name: "Y", optional: false, variadic: false, state: "free", value: "b" }],
    parent: null, collapsed: false, child_count: 0, diagnostic: "error", precision: "fp16", hidden_constant: false,
    width: 140, height: 48,
  };
}

const live = new Map<EventTarget, Map<string, number>>();
const realAdd = EventTarget.prototype.addEventListener;
const realRemove = EventTarget.prototype.removeEventListener;

function total(): number {
  let n = 0;
  live.forEach((m) => m.forEach((c) => (n += c)));
  return n;
}

describe("canvas widget lifecycle", () => {
  beforeEach(() => {
    live.clear();
    vi.spyOn(EventTarget.prototype, "addEventListener").mockImplementation(function (this: EventTarget, type: string, fn: unknown, opts?: unknown) {
      if (new Error().stack?.includes("nwsapi")) return realAdd.call(this, type, fn as EventListener, opts as AddEventListenerOptions); // jsdom internals
      const m = live.get(this) ?? new Map<string, number>();
      m.set(type, (m.get(type) ?? 0) + 1);
      live.set(this, m);
      return realAdd.call(this, type, fn as EventListener, opts as AddEventListenerOptions);
    });
    vi.spyOn(EventTarget.prototype, "removeEventListener").mockImplementation(function (this: EventTarget, type: string, fn: unknown, opts?: unknown) {
      const m = live.get(this);
      if (m && m.get(type)) m.set(type, m.get(type)! - 1);
      return realRemove.call(this, type, fn as EventListener, opts as EventListenerOptions);
    });
    // jsdom has no 2D canvas: a permissive stand-in lets cytoscape's renderer and our overlay run.
    const store: Record<string | symbol, unknown> = {};
    const ctx2d: object = new Proxy(store, {
      get: (t, k) => (k in t ? t[k] : k === "measureText" ? () => ({ width: 10 }) : () => ctx2d),
      set: (t, k, v) => { t[k] = v; return true; },
    });
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => ctx2d as never);
    (globalThis as { ResizeObserver?: unknown }).ResizeObserver = class { observe() {} disconnect() {} };
  });
  afterEach(() => vi.restoreAllMocks());

  it("removes every DOM and model listener on cleanup", async () => {
    const model = new FakeModel();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const before = total();
    const cleanup = widget.render({ model, el } as never) as () => void;
    expect(model.sent).toContainEqual({ kind: "hello" });
    const graph: GraphSnapshot = {
      nodes: [node("n0"), node("n1"), node("i0", "input")],
      edges: [{ id: "n0:0->n1:0", source: "n0", source_index: 0, target: "n1", target_index: 0, value: "a", label: "1x3" }],
    };
    const positions = new Float32Array([0, 0, 0, 100, 0, -100]);
    model.emit("msg:custom", { kind: "snapshot", version: 1, graph, title: "t" }, [new DataView(positions.buffer)]);
    await new Promise((r) => setTimeout(r, 10));
    const cy = (el.querySelector(".dld-stage") as unknown as { _cyreg: { cy: { nodes: () => { length: number } } } })._cyreg.cy;
    expect(model.sent.filter((m) => (m as { kind: string }).kind === "js_error")).toEqual([]);
    expect(cy.nodes().length).toBe(3);
    const moved = new Float32Array([5, 5]);
    model.emit("msg:custom", { kind: "patch", version: 2, ops: [{ op: "move", ids: ["n0"] }] }, [new DataView(moved.buffer)]);
    expect(model.count()).toBeGreaterThan(0);
    expect(total()).toBeGreaterThan(before);
    cleanup();
    expect(model.count()).toBe(0);
    const left: string[] = [];
    live.forEach((m, t) => m.forEach((c, type) => { if (c > 0) left.push(`${(t as Element).tagName ?? t.constructor.name}:${type}=${c}`); }));
    expect(left).toEqual([]);
    expect(total()).toBe(before);
    expect(el.children.length).toBe(0);
  });
});
