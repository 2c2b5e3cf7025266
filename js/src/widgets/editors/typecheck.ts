// Type check list: diagnostics with severity icons; double-click focuses the node; Check / Cancel / Lint.
import { button, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { ChecksState } from "./messages";

// Drawn, not font glyphs: emoji fonts are often missing on hubs.
const ICONS = {
  error: '<circle cx="7" cy="7" r="6.5" fill="currentColor"/><path d="M4.5 4.5l5 5M9.5 4.5l-5 5" stroke="#fff" stroke-width="1.6"/>',
  warning: '<path d="M7 0.8L13.4 12.6H0.6Z" fill="currentColor"/><path d="M7 4.6v4.2M7 10v1.4" stroke="#fff" stroke-width="1.5"/>',
  info: '<circle cx="7" cy="7" r="6.5" fill="currentColor"/><path d="M7 6v4.6M7 3.4v1.4" stroke="#fff" stroke-width="1.6"/>',
} as const;

function icon(severity: keyof typeof ICONS): HTMLElement {
  const span = h("span", { class: "dld-ed-icon", "aria-label": severity, title: severity });
  span.innerHTML = `<svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">${ICONS[severity]}</svg>`;
  return span;
}

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
      icon(item.severity),
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
