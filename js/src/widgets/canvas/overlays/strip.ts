/**
 * The overlay strip (Python half: dld_jupyter/widgets/canvas/overlays/strip.py): one row at the canvas's top-left
 * corner listing the active overlays (heat, divergence, changes, node data, analysis). Each chip has its name (a
 * click gives it the node colours, shown again if it was hidden), a show/hide toggle and a clear ×; the chip owning
 * the node colours is marked. A note says which overlays an edit cleared and how to draw them again (its × hides
 * it). Only the kernel decides: each click asks it, and its "set" (the whole strip) redraws the row and says which
 * overlays base.ts's Overlays draws.
 *
 * State Python knows: every entry, the owner, the note. State Python never sees: the row's DOM.
 */
import type { OverlayMessage } from "../../../common/protocol";
import type { CanvasContext } from "../context";
import { el } from "../../../common/dom";

export const STRIP = "strip";

export interface StripEntry {
  name: string;
  label: string;
  visible: boolean;
  paints: boolean;
}

export interface StripSetMessage extends OverlayMessage {
  entries: StripEntry[];
  owner: string | null;
  note: string;
}

export type StripAction = "show" | "hide" | "pick" | "clear" | "dismiss";

/** Whether overlay `name` is drawn: visible, and the colour owner if it colours nodes. No strip yet: drawn. */
export function drawnOf(state: StripSetMessage | null, name: string, paints: boolean): boolean {
  if (!state) return true;
  const entry = state.entries.find((e) => e.name === name);
  if (!entry) return false;
  return entry.visible && (!paints || state.owner === name);
}

export class Strip {
  private box: HTMLDivElement | null = null;

  constructor(private readonly ctx: CanvasContext) {
    ctx.listeners.add(() => this.dispose());
  }

  private ask(action: StripAction, name = ""): void {
    void this.ctx.channel.overlayRequest({ overlay: STRIP, action, name });
  }

  /** A chip's or the note's button: what it asks is its data-action (one listener on the strip serves them all). */
  private button(cls: string, text: string, tip: string, action: StripAction): HTMLButtonElement {
    const b = el("button", cls, text);
    b.type = "button";
    b.title = tip;
    b.setAttribute("aria-label", tip);
    b.dataset.action = action;
    return b;
  }

  private click(event: Event): void {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-action]");
    if (!button) return;
    const name = button.closest<HTMLElement>(".dld-ov-chip")?.dataset.overlay ?? "";
    this.ask(button.dataset.action as StripAction, name);
  }

  draw(state: StripSetMessage): void {
    const root = this.ctx.root;
    if (!state.entries.length && !state.note) {
      this.hide();
      delete root.dataset.overlays;
      delete root.dataset.overlayOwner;
      return;
    }
    const box = this.box ?? this.make();
    if (!box.isConnected) root.appendChild(box);
    const chips = state.entries.map((entry) => this.chip(entry, entry.name === state.owner));
    box.replaceChildren(...chips);
    if (state.note) {
      const note = el("div", "dld-ov-note");
      note.append(el("span", "", state.note), this.button("dld-ov-dismiss", "×", "Dismiss this note", "dismiss"));
      box.append(note);
    }
    root.dataset.overlays = state.entries.map((e) => `${e.name}${e.visible ? "" : ":hidden"}`).join(" ");
    root.dataset.overlayOwner = state.owner ?? "";
  }

  private chip(entry: StripEntry, owner: boolean): HTMLDivElement {
    const chip = el("div", `dld-ov-chip${owner ? " owner" : ""}${entry.visible ? "" : " hidden"}`);
    chip.dataset.overlay = entry.name;
    const what = entry.paints
      ? owner ? "owns the node colours" : entry.visible ? "click to give it the node colours" : "hidden: click to show it with the node colours"
      : entry.visible ? "drawn beside the node colours" : "hidden: click to show it";
    const name = this.button("dld-ov-name", entry.label, `${entry.label}: ${what}`, "pick");
    name.setAttribute("aria-pressed", String(owner || (!entry.paints && entry.visible)));
    const eye = this.button("dld-ov-eye", entry.visible ? "●" : "○", entry.visible ? `Hide ${entry.label} (kept)` : `Show ${entry.label}`,
      entry.visible ? "hide" : "show");
    const clear = this.button("dld-ov-clear", "×", `Clear ${entry.label}`, "clear");
    chip.append(eye, name, clear);
    return chip;
  }

  private make(): HTMLDivElement {
    const box = el("div", "dld-overlay-strip");
    box.setAttribute("role", "toolbar");
    box.setAttribute("aria-label", "Overlays");
    // Clicks on the strip stay out of the canvas (no deselect, no rubber band, no canvas keys).
    for (const type of ["mousedown", "pointerdown", "click", "dblclick", "wheel", "keydown"]) {
      this.ctx.listeners.dom(box, type, (e: Event) => e.stopPropagation());
    }
    this.ctx.listeners.dom(box, "click", (e: Event) => this.click(e));
    this.box = box;
    return box;
  }

  /** Off the canvas; made once, its listeners stay with it until the canvas goes (no new ones per redraw). */
  private hide(): void {
    this.box?.remove();
  }

  dispose(): void {
    this.box?.remove();
    this.box = null;
  }
}
