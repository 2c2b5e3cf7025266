/**
 * Test helpers for widget views in jsdom (used by the *.test.ts files only): a census of live DOM listeners, so a
 * test can check that a view's cleanup removed every listener it added (anywidget's render contract), the
 * stand-ins jsdom lacks (a 2D canvas context, ResizeObserver), and an anywidget model stand-in (FakeModel).
 */
import { vi } from "vitest";

const realAdd = EventTarget.prototype.addEventListener;
const realRemove = EventTarget.prototype.removeEventListener;

/** Count listeners added minus removed, per target and type; call in beforeEach (vi.restoreAllMocks in afterEach). */
export interface ListenerCensus {
  total(): number;
  leftovers(): string[]; // "TAG:type=count" for every target still holding listeners
}

export function installListenerCensus(): ListenerCensus {
  const live = new Map<EventTarget, Map<string, number>>();
  vi.spyOn(EventTarget.prototype, "addEventListener").mockImplementation(function (
    this: EventTarget, type: string, fn: unknown, opts?: unknown,
  ) {
    if (new Error().stack?.includes("nwsapi")) return realAdd.call(this, type, fn as EventListener, opts as AddEventListenerOptions); // jsdom internals
    const m = live.get(this) ?? new Map<string, number>();
    m.set(type, (m.get(type) ?? 0) + 1);
    live.set(this, m);
    return realAdd.call(this, type, fn as EventListener, opts as AddEventListenerOptions);
  });
  vi.spyOn(EventTarget.prototype, "removeEventListener").mockImplementation(function (
    this: EventTarget, type: string, fn: unknown, opts?: unknown,
  ) {
    const m = live.get(this);
    if (m && m.get(type)) m.set(type, (m.get(type) as number) - 1);
    return realRemove.call(this, type, fn as EventListener, opts as EventListenerOptions);
  });
  return {
    total: () => {
      let n = 0;
      live.forEach((m) => m.forEach((c) => (n += c)));
      return n;
    },
    leftovers: () => {
      const left: string[] = [];
      live.forEach((m, t) =>
        m.forEach((c, type) => {
          if (c > 0) left.push(`${(t as Element).tagName ?? t.constructor.name}:${type}=${c}`);
        }),
      );
      return left;
    },
  };
}

/** jsdom has no 2D canvas or ResizeObserver: permissive stand-ins let renderers and overlays run. */
export function installCanvasStandIns(): void {
  const store: Record<string | symbol, unknown> = {};
  const ctx2d: object = new Proxy(store, {
    get: (t, k) => (k in t ? t[k] : k === "measureText" ? () => ({ width: 10 }) : () => ctx2d),
    set: (t, k, v) => {
      t[k] = v;
      return true;
    },
  });
  vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => ctx2d as never);
  (globalThis as { ResizeObserver?: unknown }).ResizeObserver = class {
    observe() {}
    disconnect() {}
  };
}

type Handler = (...args: unknown[]) => void;

/** An anywidget model stand-in: `state` read and written by get/set, messages to the kernel kept in `sent`,
 *  `emit` delivers an event (a `msg:custom` from the kernel, a `change:x`), `count` the listeners still attached. */
export class FakeModel {
  handlers = new Map<string, Set<Handler>>();
  state: Record<string, unknown> = {};
  sent: Record<string, unknown>[] = [];
  get(k: string) { return this.state[k]; }
  set(k: string, v: unknown) { this.state[k] = v; }
  save_changes() {}
  send(msg: Record<string, unknown>) { this.sent.push(msg); }
  on(e: string, f: Handler) { if (!this.handlers.has(e)) this.handlers.set(e, new Set()); this.handlers.get(e)!.add(f); }
  off(e: string, f: Handler) { this.handlers.get(e)?.delete(f); }
  emit(e: string, ...args: unknown[]) { this.handlers.get(e)?.forEach((f) => f(...args)); }
  count() { let n = 0; this.handlers.forEach((s) => (n += s.size)); return n; }
}
