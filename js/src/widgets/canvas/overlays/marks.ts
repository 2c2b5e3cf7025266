/**
 * What the comparison overlays share (Python half: dld_jupyter/widgets/canvas/overlays/marks.py): colouring canvas
 * elements by a mark ("added", "changed", "over", "within"), a collapsed group by the marks inside it, a legend box
 * whose clicks stay out of the canvas, a tooltip, and asking the kernel to focus a node (its groups expand there).
 * Colours are element data + the class `cmp`, so the category colours come back untouched when it is cleared.
 * One comparison overlay paints at a time: the one the overlay strip (strip.ts) says owns the node colours.
 *
 * State Python knows: the marks (its "set"). State Python never sees: the tooltip, the legend's DOM, sort order.
 */
import type { NodeSingular } from "cytoscape";
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import type { CanvasOverlay } from "./base";
import { el } from "../../../common/dom";

export interface Colour {
  bg: string;
  fg: string;
}

/** Colour-blind-aware pairs (ColorBrewer): blue for new, orange for changed, red for past, green for within. */
export const COLOURS: Record<string, Colour> = {
  added: { bg: "#2c7bb6", fg: "#ffffff" },
  changed: { bg: "#fdae61", fg: "#111111" },
  over: { bg: "#d73027", fg: "#ffffff" },
  within: { bg: "#a6d96a", fg: "#111111" },
};

export type GroupCounts = Record<string, Record<string, number>>;


/** The mark a collapsed group shows: the first of `priority` any member has. */
export function groupMark(counts: Record<string, number> | undefined, priority: string[]): string | null {
  if (!counts) return null;
  return priority.find((mark) => (counts[mark] ?? 0) > 0) ?? null;
}

/** Colour the canvas's op nodes and collapsed groups; `first` gets an outline. Writes only what changed. */
export function paint(
  ctx: CanvasContext, markOf: (n: NodeSingular) => string | null, first: string | null, colours: Record<string, Colour> = COLOURS,
): void {
  const { cy } = ctx;
  cy.batch(() => {
    cy.nodes().forEach((n) => {
      const coloured = n.hasClass("op") || (n.hasClass("group") && n.hasClass("collapsed"));
      const mark = coloured ? markOf(n) : null;
      const colour = mark ? colours[mark] : undefined;
      if (colour) {
        if (n.data("cmp") !== colour.bg) n.data({ cmp: colour.bg, cmpfg: colour.fg });
        if (!n.hasClass("cmp")) n.addClass("cmp");
      } else if (n.hasClass("cmp")) {
        n.removeClass("cmp");
      }
      const isFirst = n.id() === first;
      if (isFirst !== n.hasClass("cmp-first")) n.toggleClass("cmp-first", isFirst);
    });
  });
}

export function unpaint(ctx: CanvasContext): void {
  ctx.cy.batch(() => ctx.cy.nodes(".cmp, .cmp-first").removeClass("cmp cmp-first"));
}

/** A legend box at the canvas's corner; pointer events on it stay out of the canvas (no deselect, no band). */
export function legendBox(ctx: CanvasContext, cls: string): HTMLDivElement {
  const box = el("div", `dld-cmp-legend ${cls}`);
  ctx.root.appendChild(box);
  for (const type of ["mousedown", "pointerdown", "click", "dblclick", "wheel", "keydown"]) {
    ctx.listeners.dom(box, type, (e: Event) => e.stopPropagation());
  }
  return box;
}

/** A head line with a title and a close X (its box's one click listener closes the overlay: MarkedOverlay.box). */
export function legendHead(title: string, tip: string): HTMLDivElement {
  const head = el("div", "dld-cmp-head");
  const t = el("span", "dld-cmp-title", title);
  t.title = tip;
  const x = el("button", "dld-cmp-close", "×");
  x.type = "button";
  x.title = "Clear it (back to the category colours)";
  x.setAttribute("aria-label", "Clear");
  head.append(t, x);
  return head;
}

export function swatch(mark: string, text: string): HTMLDivElement {
  const row = el("div", "dld-cmp-key");
  const box = el("span", "dld-cmp-swatch");
  box.style.background = COLOURS[mark].bg;
  row.append(box, el("span", "", text));
  return row;
}

/** Ask the kernel to focus a node: it expands the groups around it, selects and centres it. */
export function focusNode(ctx: CanvasContext, overlay: string, id: string): void {
  void ctx.channel.overlayRequest({ overlay, action: "focus", id });
}

/** A tooltip that follows hovered elements, its lines given by `lines` (none: hidden). */
export class Tip {
  private box: HTMLDivElement | null = null;

  constructor(private readonly ctx: CanvasContext, lines: (n: NodeSingular) => string[] | null) {
    ctx.listeners.cy(ctx.cy, "mouseover", "node", (event) => {
      const found = lines(event.target as NodeSingular);
      if (found) this.show(found, event.renderedPosition);
    });
    // Back on the node it last saw (the pointer left the canvas, or the overlays changed): no second mouseover.
    ctx.listeners.cy(ctx.cy, "mousemove", "node", (event) => {
      if (this.box?.style.display === "") return;
      const found = lines(event.target as NodeSingular);
      if (found) this.show(found, event.renderedPosition);
    });
    ctx.listeners.cy(ctx.cy, "mouseout", "node", () => this.hide());
    ctx.listeners.cy(ctx.cy, "viewport", null, () => this.hide());
    ctx.listeners.dom(ctx.root, "mouseleave", () => this.hide()); // to the Run / Step buttons: no mouseout comes
  }

  private show(lines: string[], at: { x: number; y: number }): void {
    if (!this.box) {
      this.box = el("div", "dld-cmp-tip");
      this.ctx.root.appendChild(this.box);
    }
    this.box.replaceChildren(...lines.map((text, i) => el("div", i === 0 ? "dld-cmp-tip-title" : "", text)));
    this.box.style.display = "";
    this.box.style.left = `${Math.min(at.x + 14, Math.max(0, this.ctx.root.clientWidth - 320))}px`;
    this.box.style.top = `${at.y + 14}px`;
  }

  hide(): void {
    if (this.box) this.box.style.display = "none";
  }

  dispose(): void {
    this.box?.remove();
    this.box = null;
  }
}

/** A comparison overlay: "set" shows a state, "clear" (or the legend's X) removes it and its boxes. */
export abstract class MarkedOverlay<T extends OverlayMessage & { groups: GroupCounts }> implements CanvasOverlay {
  data: T | null = null;
  drawn = true; // the strip's word: visible and owning the node colours
  protected readonly tip: Tip;
  protected readonly boxes = new Map<string, HTMLDivElement>();

  constructor(protected readonly ctx: CanvasContext, private readonly flag: string) {
    this.tip = new Tip(ctx, (n) => (this.drawn ? this.lines(n) : null));
    ctx.listeners.add(() => this.dispose());
  }

  /** The tooltip of an op node (its name and op type given), null for none. */
  protected abstract describe(n: NodeSingular, name: string, op: string): string[] | null;
  /** The tooltip's second line for a group, from the counts of marks inside it. */
  protected abstract groupText(counts: Record<string, number>): string;
  protected abstract show(data: T): void;
  abstract refresh(): void;

  receive(msg: OverlayMessage): void {
    if (msg.action === "set") this.show(msg as T);
    else if (msg.action === "clear") this.clear();
  }

  private lines(n: NodeSingular): string[] | null {
    const data = this.data;
    if (!data) return null;
    const stored = this.ctx.store.nodes.get(n.id());
    const name = stored?.name || n.id();
    if (!n.hasClass("group")) return this.describe(n, name, stored?.op_type ?? "");
    const counts = data.groups[n.id()];
    return counts ? [`${name} (group)`, this.groupText(counts)] : null;
  }

  /** The box of this name, on the canvas: made once (see legendBox) with one click listener for all its buttons,
   * however often it is drawn again (a listener per button per redraw piled up, each holding a detached button). */
  protected box(name: string): HTMLDivElement {
    let found = this.boxes.get(name);
    if (!found) {
      found = legendBox(this.ctx, name);
      this.ctx.listeners.dom(found, "click", (e: Event) => this.boxClick(name, e));
      this.boxes.set(name, found);
    } else if (!found.isConnected) this.ctx.root.appendChild(found);
    return found;
  }

  /** Whether the box of this name is on the canvas. */
  protected drawnBox(name: string): boolean {
    return this.boxes.get(name)?.isConnected ?? false;
  }

  /** A click in the box `name`: the close X clears the overlay; subclasses handle their own buttons first. */
  protected boxClick(_name: string, event: Event): void {
    if ((event.target as HTMLElement).closest(".dld-cmp-close")) this.closed();
  }

  protected mark(): void {
    this.ctx.root.dataset[this.flag] = "1";
  }

  /** Hide it and tell the kernel (the legend's close X). */
  protected closed(): void {
    this.clear();
    void this.ctx.channel.overlayRequest({ overlay: this.flag, action: "closed" });
  }

  clear(): void {
    const drawn = this.drawn;
    this.data = null;
    if (drawn) this.undraw();
  }

  present(drawn: boolean): void {
    this.drawn = drawn;
    if (drawn) this.refresh();
    else this.undraw();
  }

  hideTip(): void {
    this.tip.hide();
  }

  /** Nothing of it on the canvas (its data kept): the colours are the owner's, which is never another drawn one. */
  protected undraw(): void {
    this.tip.hide();
    this.removeBoxes();
    delete this.ctx.root.dataset[this.flag];
    unpaint(this.ctx);
  }

  private removeBoxes(): void {
    for (const box of this.boxes.values()) box.remove(); // kept for the next draw
  }

  dispose(): void {
    this.tip.dispose();
    this.removeBoxes();
    this.boxes.clear();
  }
}
