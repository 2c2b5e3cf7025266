/**
 * "Compare with…" (seed 001 "Compare Inference Reports"): add reports to the one shown. In JupyterLab the DL
 * Designer extension answers the `dld-pick-reports` event with its file dialog (*.dld-report.json, paths as the
 * kernel sees them); anywhere else (a plain notebook, VS Code) a path box opens in place. The kernel loads the
 * files (`viewer.compare_with`) and sends the comparison, whose baseline selector then chooses the reference.
 */
import { ViewContext } from "./context";
import { el } from "./format";

/** The event a host page answers with a file picker; `respond` gets the chosen paths, or null when cancelled. */
export const PICK_EVENT = "dld-pick-reports";
export interface PickDetail {
  respond: (paths: string[] | null) => void;
}

/** Ask the host page for report files; null when no host answers (then the path box is used). */
function hostPick(from: HTMLElement): Promise<string[] | null> | null {
  let answer: ((paths: string[] | null) => void) | null = null;
  const chosen = new Promise<string[] | null>((resolve) => (answer = resolve));
  const event = new CustomEvent<PickDetail>(PICK_EVENT, {
    bubbles: true, composed: true, cancelable: true, detail: { respond: (paths) => answer?.(paths) },
  });
  from.dispatchEvent(event);
  return event.defaultPrevented ? chosen : null; // preventDefault(): "a picker is open"
}

export function compareWithButton(ctx: ViewContext): HTMLElement {
  const bar = el("div", "dld-r-actions");
  const button = el("button", "dld-r-compare-with", "Compare with…");
  button.title = "Compare this report with other reports (*.dld-report.json, trtexec or ONNX Runtime profiles)";
  const form = el("form", "dld-r-compare-form");
  form.hidden = true;
  const input = el("input", "dld-r-compare-path");
  input.placeholder = "other.dld-report.json (several: separate with commas)";
  const go = el("button", "", "Compare");
  go.type = "submit";
  const cancel = el("button", "", "Cancel");
  cancel.type = "button";
  form.append(input, go, cancel);
  bar.append(button, form);

  const send = async (paths: string[]) => {
    if (!paths.length) return;
    button.disabled = true;
    try {
      const reply = await ctx.request<{ reports: number }>("compare_with", { paths });
      if (!reply.ok) ctx.notice(reply.error ?? "compare with: the kernel gave no reason", "error");
      else form.hidden = true;
    } finally {
      button.disabled = false;
    }
  };
  ctx.listeners.dom(button, "click", () => {
    const picked = hostPick(bar);
    if (picked) {
      void picked.then((paths) => paths && send(paths));
      return;
    }
    form.hidden = false;
    input.focus();
  });
  ctx.listeners.dom(form, "submit", (e: Event) => {
    e.preventDefault();
    void send(input.value.split(",").map((p) => p.trim()).filter((p) => p));
  });
  ctx.listeners.dom(cancel, "click", () => (form.hidden = true));
  return bar;
}
