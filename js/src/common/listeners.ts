/**
 * Every listener a widget view adds goes through here, so the anywidget cleanup (`render`'s return) removes all
 * of them, and every handler reports its exceptions (shown in the widget and sent to the kernel) instead of dying
 * in the browser console. Widgets with their own event sources extend it (the canvas adds cytoscape events).
 */
import type { AnyModel } from "@anywidget/types";

export type Handler = (...args: never[]) => unknown;

export class Listeners {
  protected readonly undo: Array<() => void> = [];

  constructor(readonly report: (error: unknown, where: string) => void) {}

  /** Wrap `fn` so an exception is reported, not thrown into the host page. */
  guard<F extends Handler>(fn: F, where: string): F {
    const report = this.report;
    return function (this: unknown, ...args: never[]) {
      try {
        return fn.apply(this, args);
      } catch (error) {
        report(error, where);
        return undefined;
      }
    } as F;
  }

  dom(target: EventTarget, type: string, fn: (event: never) => void, options?: AddEventListenerOptions): void {
    const wrapped = this.guard(fn as Handler, `${type} handler`) as unknown as EventListener;
    target.addEventListener(type, wrapped, options);
    this.undo.push(() => target.removeEventListener(type, wrapped, options));
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model(model: AnyModel, event: string, fn: (...args: any[]) => void): void {
    const wrapped = this.guard(fn as Handler, `model ${event}`) as (...args: unknown[]) => void;
    model.on(event, wrapped);
    this.undo.push(() => model.off(event, wrapped));
  }

  /** A requestAnimationFrame-coalesced call of `fn`: many triggers in one frame run it once. */
  frame(fn: () => void): () => void {
    let id = 0;
    const run = this.guard(() => {
      id = 0;
      fn();
    }, "frame");
    this.undo.push(() => {
      if (id) cancelAnimationFrame(id);
      id = 0;
    });
    return () => {
      if (!id) id = requestAnimationFrame(run);
    };
  }

  /** Anything else to undo at cleanup (timers, observers, DOM nodes). */
  add(undo: () => void): void {
    this.undo.push(undo);
  }

  dispose(): void {
    while (this.undo.length) {
      const fn = this.undo.pop();
      try {
        fn?.();
      } catch (error) {
        this.report(error, "cleanup");
      }
    }
  }
}
