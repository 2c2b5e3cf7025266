/** The canvas context menu: a small HTML menu built per right-click from what is under the pointer. */
import type { CanvasContext } from "./context";
import { actions } from "./actions";
import { download } from "./export";
import { openPrecisionDialog } from "./trt_precision";
import { openProfileDialog } from "./trt_profile";
import { ioNodeAt } from "./trt_open";
import { childItems, selectionItems } from "./child_menu";

export interface Item {
  label: string;
  run: () => void;
  disabled?: boolean;
}

let openMenu: HTMLDivElement | null = null;

export function closeMenu(): void {
  openMenu?.remove();
  openMenu = null;
}

/** Show a menu of `items` at rendered position `p` of the canvas (one menu at a time); `kind` names it for tests. */
export function popupMenu(ctx: CanvasContext, items: Item[], p: { x: number; y: number }, kind = "context"): HTMLDivElement {
  closeMenu();
  const el = document.createElement("div");
  el.className = "dld-menu";
  el.dataset.menu = kind;
  for (const item of items) {
    const row = document.createElement("div");
    row.className = "dld-menu-item" + (item.disabled ? " disabled" : "");
    row.textContent = item.label;
    // Element-owned handlers: they go away with the menu.
    row.onmousedown = (e) => e.stopPropagation();
    row.onclick = () => {
      closeMenu();
      if (!item.disabled) ctx.listeners.guard(item.run, `menu "${item.label}"`)();
    };
    el.appendChild(row);
  }
  el.style.left = `${p.x}px`;
  el.style.top = `${p.y}px`;
  ctx.root.appendChild(el);
  openMenu = el;
  return el;
}

export function installMenu(ctx: CanvasContext): void {
  const close = closeMenu;
  ctx.listeners.add(close);

  ctx.listeners.cy(ctx.cy, "cxttap", null, (event) => {
    const target = event.target === ctx.cy ? (ioNodeAt(ctx, event.position) ?? ctx.cy) : event.target;
    const items: Item[] = [];
    const selected = ctx.cy.nodes(":selected").length;
    if (target !== ctx.cy && target.isNode && target.isNode()) {
      if (!target.selected()) {
        ctx.cy.elements(":selected").unselect();
        target.select();
      }
      const data = ctx.store.nodes.get(target.id());
      if (data?.kind === "group") {
        const what = data.function ? "local function" : "group";
        items.push({ label: data.collapsed ? `Expand ${what}` : `Collapse ${what}`, run: () => void ctx.channel.intent(data.collapsed ? "expand" : "collapse", { group: data.id }) });
      } else if (data?.function) {
        items.push({ label: "Expand local function", run: () => void ctx.channel.intent("expand", { group: data.id }) });
      }
      if (data) items.push(...childItems(ctx, data));
      items.push({ label: "Delete", run: () => actions.delete(ctx) });
      items.push({ label: "Copy", run: () => actions.copy(ctx) });
      items.push({ label: "Cut", run: () => actions.cut(ctx) });
      items.push({ label: "Paste", run: () => actions.paste(ctx) });
      if (data?.kind === "op") items.push({ label: `Go to documentation (${data.op_type})`, run: () => void actions.documentation(ctx, data.id) });
      if (data?.kind === "op") items.push({ label: "Set Layer Precision…", run: () => openPrecisionDialog(ctx, ctx.cy.nodes(":selected").map((n) => n.id())) });
      if (data?.kind === "input") items.push({ label: "Set TensorRT Optimization Profile…", run: () => void openProfileDialog(ctx, data.id) });
      items.push({ label: "Extract selection to a new model", run: () => void actions.extract(ctx) });
      items.push(...selectionItems(ctx));
    } else if (target !== ctx.cy && target.isEdge && target.isEdge()) {
      const id = target.id();
      items.push({ label: "Go to source", run: () => actions.goto(ctx, id, "source") });
      items.push({ label: "Go to destination", run: () => actions.goto(ctx, id, "target") });
      items.push({ label: "Delete link", run: () => { ctx.cy.elements(":selected").unselect(); target.select(); actions.delete(ctx); } });
    } else {
      items.push({ label: "Paste", run: () => actions.paste(ctx) });
      items.push({ label: "Delete selection", run: () => actions.delete(ctx), disabled: !selected });
      items.push({ label: "Extract selection to a new model", run: () => void actions.extract(ctx), disabled: !selected });
      items.push(...selectionItems(ctx));
      items.push({ label: "Arrange", run: () => actions.arrange(ctx) });
      items.push({ label: "Fit to view", run: () => actions.fit(ctx) });
      items.push({ label: "Export as PNG", run: () => download(ctx, "png") });
      items.push({ label: "Export as SVG", run: () => download(ctx, "svg") });
      items.push({ label: "Export as JPEG", run: () => download(ctx, "jpg") });
    }
    popupMenu(ctx, items, event.renderedPosition ?? { x: 0, y: 0 });
  });
  ctx.listeners.cy(ctx.cy, "tap viewport", null, close);
  ctx.listeners.dom(ctx.root, "contextmenu", (e: MouseEvent) => e.preventDefault());
}
