/**
 * Every listener the canvas adds goes through here, so cleanup removes all of them (anywidget `render` contract)
 * and every handler reports its exceptions to the kernel instead of dying silently in the console.
 */
import type { AnyModel } from "@anywidget/types";
import type { Core, EventObject } from "cytoscape";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (...args: never[]) => unknown;

export class Listeners {
  private readonly undo: Array<() => void> = [];

  constructor(private readonly report: (error: unknown, where: string) => void) {}

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

  dom<K extends string>(target: EventTarget, type: K, fn: (event: never) => void, options?: AddEventListenerOptions): void {
    const wrapped = this.guard(fn as Handler, `${type} handler`) as unknown as EventListener;
    target.addEventListener(type, wrapped, options);
    this.undo.push(() => target.removeEventListener(type, wrapped, options));
  }

  cy(cy: Core, events: string, selector: string | null, fn: (event: EventObject) => void): void {
    const wrapped = this.guard(fn as Handler, `cytoscape ${events}`) as unknown as (e: EventObject) => void;
    if (selector) cy.on(events, selector, wrapped);
    else cy.on(events, wrapped);
    this.undo.push(() => (selector ? cy.off(events, selector, wrapped) : cy.off(events, wrapped)));
  }

  model(model: AnyModel, event: string, fn: (...args: any[]) => void): void {
    const wrapped = this.guard(fn as Handler, `model ${event}`) as (...args: unknown[]) => void;
    model.on(event, wrapped);
    this.undo.push(() => model.off(event, wrapped));
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
