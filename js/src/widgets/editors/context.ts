// What every panel section gets: the model, intents, drafts kept while an error shows, and the inline field.
import type { AnyModel } from "@anywidget/types";
import { h, Listeners } from "./dom";
import { PendingRequests, Reply } from "../../common/envelope";
import type { FieldError, Intent } from "./messages";

export interface EditorsModel {
  selection: string[]; tab: string; height: string; params: unknown; inits: unknown; init_items: unknown; tensor: unknown;
  checks: unknown; errors: Record<string, FieldError>; notice: unknown; disabled_tabs: Record<string, string>;
}

/** UI state Python never sees: filters, open sections, what is being typed. */
export interface UiState {
  defaultsOpen: boolean; docOpen: boolean; createOpen: boolean; filter: string; createMode: string;
  createDtype: string; previews: Set<string>; fields: Map<string, string>;
}

export class PanelContext {
  readonly drafts = new Map<string, string>();
  readonly ui: UiState = {
    defaultsOpen: false, docOpen: false, createOpen: false, filter: "", createMode: "literal", createDtype: "float",
    previews: new Set(), fields: new Map(),
  };
  constructor(readonly model: AnyModel<EditorsModel>) {}

  /** Requests of the shared envelope (common/envelope.ts) that the kernel has not answered yet. */
  readonly pending = new PendingRequests();

  /** Send an intent as a request; its reply says ok or carries the refusal (also shown as the field's error). */
  send(intent: Intent): Promise<Reply> {
    const { kind, ...args } = intent;
    const [request, reply] = this.pending.open();
    this.model.send({ kind: "request", request, action: kind, args });
    return reply;
  }

  errors(): Record<string, FieldError> { return this.model.get("errors") ?? {}; }

  /** The text to show in field `key`: what the user typed while it is refused, else the model's value. */
  shown(key: string, value: string): string {
    return this.errors()[key] && this.drafts.has(key) ? this.drafts.get(key)! : value;
  }

  /** Send an edit of field `key`, remembering the text in case it is refused. */
  commit(key: string, text: string, intent: Intent): void {
    this.drafts.set(key, text);
    this.send({ ...intent, key });
  }

  /** A plain input whose text survives re-renders (a refused form keeps what the user typed). */
  field(ls: Listeners, key: string, initial: string, placeholder = "", multiline = false): HTMLInputElement {
    const el = h(multiline ? "textarea" : "input", { class: "dld-ed-input", placeholder, "data-field": key.split(":").pop() }) as HTMLInputElement;
    el.value = this.ui.fields.get(key) ?? initial;
    ls.on(el, "input", () => this.ui.fields.set(key, el.value));
    return el;
  }

  forgetFields(prefix: string): void {
    for (const k of [...this.ui.fields.keys()]) if (k.startsWith(prefix)) this.ui.fields.delete(k);
  }

  errorBox(key: string): HTMLElement | string {
    const err = this.errors()[key];
    if (!err) return "";
    const box = h("div", { class: "dld-ed-error", role: "alert", "data-key": key }, h("div", { text: err.message }));
    if (err.caret >= 0 && err.excerpt) {
      box.append(h("pre", { class: "dld-ed-caret", text: `${err.excerpt}\n${" ".repeat(err.caret)}^` }));
    }
    return box;
  }

  /** A text input committed on Enter or blur; Escape reverts it and clears its error. */
  input(ls: Listeners, key: string, value: string, onCommit: (text: string) => void, opts: InputOptions = {}): HTMLElement {
    const el = h(opts.multiline ? "textarea" : "input", {
      class: "dld-ed-input" + (this.errors()[key] ? " dld-ed-invalid" : ""), "data-key": key,
      placeholder: opts.placeholder, title: opts.title, spellcheck: "false",
    }) as HTMLInputElement | HTMLTextAreaElement;
    el.value = this.shown(key, value);
    let committed = el.value;
    const commit = () => {
      if (el.value === committed && !this.errors()[key]) return;
      committed = el.value;
      el.dataset.drawn = el.value; // sent: no longer text a re-render must keep (keepTyping)
      onCommit(el.value);
    };
    if (!opts.explicit) {
      ls.on<KeyboardEvent>(el, "keydown", (e) => {
        if (e.key === "Enter" && !(opts.multiline && !e.ctrlKey)) { e.preventDefault(); commit(); }
        if (e.key === "Escape") {
          el.value = value; committed = value; this.drafts.delete(key); this.send({ kind: "clear_error", key });
        }
      });
      ls.on(el, "change", commit);
    }
    return el;
  }
}

export interface InputOptions { placeholder?: string; title?: string; multiline?: boolean; explicit?: boolean }

export function button(ls: Listeners, label: string, title: string, fn: () => void, cls = ""): HTMLButtonElement {
  const b = h("button", { class: `dld-ed-btn ${cls}`.trim(), title, type: "button", text: label });
  ls.on(b, "click", (e) => { e.stopPropagation(); fn(); });
  return b;
}

/** Re-render `root` with `render`; when it shows the same `subject` as before, the control that had the focus (a
 * field, a select: by its data-key) has it again in the new drawing, with its caret, and a field being typed in (its
 * text changed since it was drawn) keeps its text. Keeping only the edited text was not enough: a field just clicked
 * into, or just focused by a test's fill, lost the focus when the answer to the element type chosen a moment before
 * redrew the panel, and the shape typed next went nowhere (seen on a loaded CI runner). */
export function keepTyping(root: HTMLElement, subject: string, render: () => void): void {
  const active = document.activeElement as HTMLElement | null;
  const key = root.dataset.subject === subject && active && root.contains(active) ? active.dataset.key : undefined;
  const typed = key && isText(active)
    ? { value: active.value, edited: active.value !== active.dataset.drawn, start: active.selectionStart, end: active.selectionEnd }
    : null;
  render();
  root.dataset.subject = subject;
  const fields = [...root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(".dld-ed-input[data-key]")];
  for (const field of fields) field.dataset.drawn = field.value;
  const controls = root.querySelectorAll<HTMLElement>("input[data-key], textarea[data-key], select[data-key]");
  const again = key ? [...controls].find((el) => el.dataset.key === key) : undefined; // not its error box's data-key
  if (!again) return;
  if (typed?.edited && isText(again)) again.value = typed.value;
  again.focus();
  if (typed && isText(again) && typed.start !== null && typed.end !== null && again.value === typed.value) {
    again.setSelectionRange(typed.start, typed.end);
  }
}

function isText(el: Element | null): el is HTMLInputElement | HTMLTextAreaElement {
  return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;
}
