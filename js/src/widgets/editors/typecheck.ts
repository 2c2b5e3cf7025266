// Type check list: diagnostics with severity icons; double-click focuses the node; Check / Cancel / Lint.
import { button, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { ChecksState } from "./messages";

const ICONS = { error: "⛔", warning: "⚠", info: "ℹ" } as const;

export function renderChecks(ctx: PanelContext, ls: Listeners, root: HTMLElement): void {
  ls.clear();
  const s = ctx.model.get("checks") as ChecksState | undefined;
  if (!s || !s.items) { root.replaceChildren(); return; }
  const errors = s.items.filter((i) => i.severity === "error").length;
  const warnings = s.items.filter((i) => i.severity === "warning").length;
  const status = s.running ? "Checking…" : s.lint_running ? "Polygraphy lint running…"
    : !s.checked ? "Not checked yet" : `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}${s.stale ? " (model changed since)" : ""}`;
  const cancel = button(ls, "Cancel Check", "Stop the running check", () => ctx.send({ kind: "cancel_check" }));
  cancel.disabled = !s.running && !s.lint_running;
  const bar = h("div", { class: "dld-ed-bar" },
    button(ls, "Check Model", "Run the checker and shape inference now", () => ctx.send({ kind: "check" }), "dld-ed-primary"),
    cancel, button(ls, "Lint", "Polygraphy lint (separate process)", () => ctx.send({ kind: "lint" })),
    h("span", { class: "dld-ed-status" + (s.running || s.lint_running ? " dld-ed-running" : ""), "data-status": s.running ? "running" : "idle", text: status }),
    s.automatic ? null : h("span", { class: "dld-ed-muted", text: "Automatic checks are off for this large model." }));
  const list = h("div", { class: "dld-ed-checklist", role: "list" });
  for (const item of s.items) {
    const line = h("div", { class: `dld-ed-check dld-ed-${item.severity}`, role: "listitem", "data-node": item.node_id ?? "", title: item.fix_hint || item.message },
      h("span", { class: "dld-ed-icon", text: ICONS[item.severity], "aria-label": item.severity }),
      h("span", { class: "dld-ed-msg", text: item.message }),
      h("span", { class: "dld-ed-node", text: item.node_name }));
    if (item.node_id) {
      const id = item.node_id;
      ls.on(line, "dblclick", () => ctx.send({ kind: "focus", node_id: id }));
    }
    list.append(line);
  }
  if (!s.items.length && s.checked) list.append(h("div", { class: "dld-ed-muted", text: "No problems found." }));
  root.replaceChildren(bar, list);
}
