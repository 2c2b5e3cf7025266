/** The canvas's listeners: the shared registry (common/listeners.ts) plus cytoscape events. */
import type { Core, EventObject } from "cytoscape";

import { Handler, Listeners as BaseListeners } from "../../common/listeners";

export class Listeners extends BaseListeners {
  cy(cy: Core, events: string, selector: string | null, fn: (event: EventObject) => void): void {
    const wrapped = this.guard(fn as Handler, `cytoscape ${events}`) as unknown as (e: EventObject) => void;
    if (selector) cy.on(events, selector, wrapped);
    else cy.on(events, wrapped);
    this.undo.push(() => (selector ? cy.off(events, selector, wrapped) : cy.off(events, wrapped)));
  }
}
