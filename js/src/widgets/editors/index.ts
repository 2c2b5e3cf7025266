/**
 * Editor panels anywidget (Python half: dld_jupyter/widgets/editors/panels.py).
 *
 * State Python knows (synced traits): selection, tab, height; panel views params/inits/tensor/checks, errors and
 * notice come from the kernel. State Python never sees: drafts, filters, open sections and dialogs (PanelContext.ui).
 * Every edit is an intent sent as a request of the shared envelope (common/envelope.ts); the kernel applies it as a
 * Document command or refuses it with an inline error, and answers with a reply either way.
 */
import type { AnyModel, RenderProps } from "@anywidget/types";
import "./editors.css";
import { button, EditorsModel, PanelContext } from "./context";
import { h, Listeners } from "./dom";
import type { Notice } from "./messages";
import type { Reply } from "../../common/envelope";
import { renderChecks } from "./typecheck";
import { renderInitializers } from "./initializers";
import { renderParameters } from "./parameters";
import { renderTensor } from "./tensor";

const TABS: [string, string][] = [["parameters", "Parameters"], ["initializers", "Initializers"], ["tensor", "Tensor Editor"]];

function render({ model, el }: RenderProps<EditorsModel>): () => void {
  const ctx = new PanelContext(model as AnyModel<EditorsModel>);
  const chrome = new Listeners();
  const sections = { parameters: new Listeners(), initializers: new Listeners(), tensor: new Listeners(), checks: new Listeners() };
  const tabBar = h("div", { class: "dld-ed-tabs", role: "tablist" });
  const notice = h("div", { class: "dld-ed-notice" });
  const reason = h("div", { class: "dld-ed-reason dld-ed-notice-warning" });
  const panes: Record<string, HTMLElement> = {
    parameters: h("div", { class: "dld-ed-section", "data-panel": "parameters" }),
    initializers: h("div", { class: "dld-ed-section", "data-panel": "initializers" }),
    tensor: h("div", { class: "dld-ed-section", "data-panel": "tensor" }),
  };
  const checks = h("div", { class: "dld-ed-section dld-ed-checks", "data-panel": "checks" });
  const root = h("div", { class: "dld-editors" }, tabBar, reason, notice, panes.parameters, panes.initializers, panes.tensor,
    h("div", { class: "dld-ed-sub dld-ed-checks-title", text: "Type Check List" }), checks);
  el.append(root);

  const tabs = () => {
    const current = model.get("tab");
    const disabled = (model.get("disabled_tabs") ?? {}) as Record<string, string>;
    tabBar.replaceChildren(...TABS.map(([id, label]) => {
      const why = disabled[id];
      const b = button(chrome, label, why ?? label, () => { model.set("tab", id); model.save_changes(); }, "dld-ed-tab" + (id === current ? " dld-ed-active" : "") + (why ? " dld-ed-tab-disabled" : ""));
      b.setAttribute("role", "tab"); b.setAttribute("data-tab", id);
      return b;
    }));
    for (const [id, pane] of Object.entries(panes)) pane.style.display = id === current ? "" : "none";
    // A disabled tab (a subgraph has no initializers) says why instead of its editor.
    const why = disabled[current];
    reason.textContent = why ? `${TABS.find(([id]) => id === current)?.[1]} — not available here: ${why}` : "";
    reason.style.display = why ? "" : "none";
    if (why) panes[current].style.display = "none";
  };
  const showNotice = () => {
    const n = (model.get("notice") ?? {}) as Notice;
    notice.className = `dld-ed-notice dld-ed-notice-${n.kind ?? "info"}`;
    notice.textContent = n.text ?? "";
    notice.style.display = n.text ? "" : "none";
  };
  const params = () => renderParameters(ctx, sections.parameters, panes.parameters);
  const inits = () => renderInitializers(ctx, sections.initializers, panes.initializers);
  const initsNode = () => renderInitializers(ctx, sections.initializers, panes.initializers, true);
  const tensor = () => renderTensor(ctx, sections.tensor, panes.tensor);
  const newTensor = () => { ctx.forgetFields("tensor:"); tensor(); }; // new values: drop what was typed for the old ones
  const checkList = () => renderChecks(ctx, sections.checks, checks);
  const errors = () => { params(); inits(); tensor(); };
  const height = () => { root.style.maxHeight = model.get("height") || ""; };
  const onTab = () => { chrome.clear(); tabs(); };
  const subscriptions: [string, () => void][] = [
    ["change:tab", onTab], ["change:disabled_tabs", onTab], ["change:params", params], ["change:inits", initsNode], ["change:init_items", inits], ["change:tensor", newTensor],
    ["change:checks", checkList], ["change:errors", errors], ["change:notice", showNotice], ["change:height", height],
  ];
  for (const [event, fn] of subscriptions) model.on(event, fn);
  const onMessage = (msg: { kind?: string }) => { if (msg.kind === "reply") ctx.pending.settle(msg as Reply); };
  model.on("msg:custom", onMessage);
  onTab(); showNotice(); errors(); checkList(); height();

  return () => {
    for (const [event, fn] of subscriptions) model.off(event, fn);
    model.off("msg:custom", onMessage);
    ctx.pending.clear();
    chrome.clear();
    for (const ls of Object.values(sections)) ls.clear();
    root.remove();
  };
}

export default { render };
