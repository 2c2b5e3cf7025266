/** A small floating panel with an operator's schema documentation ("go to documentation"). */
import type { CanvasContext } from "./context";

export function showDoc(ctx: CanvasContext, title: string, text: string): void {
  ctx.root.querySelector(".dld-doc")?.remove();
  const panel = document.createElement("div");
  panel.className = "dld-doc";
  const head = document.createElement("div");
  head.className = "dld-doc-head";
  head.textContent = title;
  const close = document.createElement("button");
  close.textContent = "×";
  close.title = "Close";
  close.onclick = () => panel.remove(); // element-owned handler: goes away with the panel
  head.appendChild(close);
  const body = document.createElement("pre");
  body.className = "dld-doc-body";
  body.textContent = text;
  panel.append(head, body);
  ctx.root.appendChild(panel);
}
