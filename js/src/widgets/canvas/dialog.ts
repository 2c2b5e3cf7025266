/**
 * A modal dialog inside the canvas (the TensorRT optimization-profile and layer-precision editors, overlays/tensorrt/;
 * Create Function from Selection, child_menu.ts): title, body, an error line and buttons. It lives in the widget's own element, so it works the same in a notebook, a DL
 * Designer document tab and the console panel; errors the kernel returns are shown in it, not only as a toast.
 */
import type { CanvasContext } from "./context";
import "./dialog.css";

export interface DialogButton {
  label: string;
  primary?: boolean;
  /** Return true to close the dialog (false keeps it open, e.g. after an error was shown). */
  run: () => boolean | Promise<boolean>;
}

export class CanvasDialog {
  readonly backdrop: HTMLDivElement;
  readonly body: HTMLDivElement;
  private readonly error: HTMLDivElement;

  constructor(private readonly ctx: CanvasContext, kind: string, title: string) {
    ctx.root.querySelector(".dld-dialog-backdrop")?.remove(); // one dialog at a time
    this.backdrop = document.createElement("div");
    this.backdrop.className = "dld-dialog-backdrop";
    const box = document.createElement("div");
    box.className = "dld-dialog";
    box.dataset.dialog = kind;
    box.setAttribute("role", "dialog");
    const head = document.createElement("div");
    head.className = "dld-dialog-title";
    head.textContent = title;
    this.body = document.createElement("div");
    this.body.className = "dld-dialog-body";
    this.error = document.createElement("div");
    this.error.className = "dld-dialog-error";
    box.append(head, this.body, this.error);
    this.backdrop.append(box);
    // Keys and clicks stay in the dialog: the canvas's shortcuts (Delete, Ctrl+Z) must not act behind it.
    box.onkeydown = (event) => {
      event.stopPropagation();
      if (event.key === "Escape") this.close();
    };
    box.onmousedown = (event) => event.stopPropagation();
    this.backdrop.onmousedown = (event) => {
      if (event.target === this.backdrop) this.close();
    };
  }

  buttons(buttons: DialogButton[]): void {
    const row = document.createElement("div");
    row.className = "dld-dialog-buttons";
    for (const spec of buttons) {
      const button = document.createElement("button");
      button.textContent = spec.label;
      if (spec.primary) button.className = "dld-dialog-primary";
      button.onclick = async () => {
        this.showError("");
        if (await spec.run()) this.close();
      };
      row.append(button);
    }
    this.body.parentElement?.append(row);
  }

  show(): void {
    this.ctx.root.appendChild(this.backdrop);
    this.backdrop.querySelector<HTMLElement>("input, select, button")?.focus();
  }

  showError(text: string): void {
    this.error.textContent = text;
  }

  close(): void {
    this.backdrop.remove();
    this.ctx.root.focus();
  }

  /** Send an intent; on refusal show the kernel's reason in the dialog and keep it open. */
  async send(action: Parameters<CanvasContext["channel"]["intent"]>[0], args: Record<string, unknown>): Promise<boolean> {
    const reply = await this.ctx.channel.intent(action, args);
    if (!reply.ok) this.showError(reply.error ?? "The kernel refused this edit.");
    return reply.ok;
  }
}
