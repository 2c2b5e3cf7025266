/** A small floating panel with an operator's schema documentation ("go to documentation"). */
import { OPERATOR_DOCS_EVENT, OPERATOR_DOCS_MARK, OperatorDocsRequest } from "../../common/operator_docs_event";
import type { CanvasContext } from "./context";

/** `operator`: where JupyterLab's documentation browser opens (a button for it when the page has the browser). */
export function showDoc(ctx: CanvasContext, title: string, text: string, operator?: OperatorDocsRequest): void {
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
  if (operator && document.body.dataset[OPERATOR_DOCS_MARK] === "1") {
    const open = document.createElement("button");
    open.className = "dld-doc-browser";
    open.textContent = "Open in ONNX Operator Documentation";
    open.title = "Every version, attributes with defaults and type constraints, in JupyterLab's documentation browser";
    open.onclick = () => {
      const detail: OperatorDocsRequest = { ...operator };
      panel.dispatchEvent(new CustomEvent(OPERATOR_DOCS_EVENT, { bubbles: true, detail }));
    };
    panel.insertBefore(open, body);
  }
  ctx.root.appendChild(panel);
}
