/**
 * The log view anywidget (Python half: dld_jupyter/widgets/tools/log_view.py): a read-only text box that grows by
 * increments, so a chatty user tool costs the browser its new bytes, not its whole log per line (issue 31).
 *
 * Messages from the kernel (usertools/log.py `LogIncrement`): `append` drops `drop` characters from the front of the
 * text, then appends `text`; `replace` sets it. Both carry the dropped totals for the "earlier output dropped" line.
 * Each view keeps its text and says `hello` when it starts (messages sent before it listened are lost: the run
 * starts before the dialog is shown), and the kernel answers with a `replace`. The box follows the end unless the
 * user scrolled up.
 */
import type { RenderProps } from "@anywidget/types";
import "./log_view.css";

interface LogModel {
  height: string;
}

export interface LogIncrement {
  kind: "append" | "replace";
  text: string;
  drop: number;
  dropped_lines: number;
  dropped_chars: number;
}

/** The same words as usertools/log.py `dropped_marker`. */
export function droppedMarker(lines: number, chars: number): string {
  if (!lines) return "";
  const n = (x: number) => x.toLocaleString("en-US");
  return `… earlier output dropped (${n(lines)} lines, ${n(chars)} characters; only the last part is kept)\n`;
}

export class LogText {
  body = "";
  marker = "";

  apply(message: LogIncrement): void {
    this.body = message.kind === "replace" ? message.text : this.body.slice(message.drop) + message.text;
    this.marker = droppedMarker(message.dropped_lines, message.dropped_chars);
  }

  get text(): string {
    return this.marker + this.body;
  }
}

function render({ model, el }: RenderProps<LogModel>): () => void {
  const box = document.createElement("textarea");
  box.readOnly = true;
  box.className = "dld-log-view";
  box.spellcheck = false;
  el.appendChild(box);
  const log = new LogText();
  const height = (): void => {
    box.style.height = model.get("height");
  };
  const draw = (): void => {
    const following = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    box.value = log.text;
    if (following) box.scrollTop = box.scrollHeight;
  };
  const onMessage = (message: LogIncrement): void => {
    if (!message || (message.kind !== "append" && message.kind !== "replace")) return;
    log.apply(message);
    draw();
  };
  model.on("msg:custom", onMessage);
  model.on("change:height", height);
  height();
  model.send({ kind: "hello" });
  return () => {
    model.off("msg:custom", onMessage);
    model.off("change:height", height);
  };
}

export default { render };
