/** The canvas context menu: a small HTML menu built per right-click from what is under the pointer. */
import type { CanvasContext } from "./context";
import { actions } from "./actions";
import { download } from "./export";
import { childItems, selectionItems } from "./child_menu";
import { closeMenu, Item, popupMenu } from "./popup_menu";

// Items that edit the model: left out while the kernel says it refuses edits (an analysis holds it, a child
// document is open), so the menu offers only what works.
const EDIT_ITEMS = [
  "Delete", "Cut", "Paste", "Delete link", "Delete selection", "Inline Function", "Create Function from Selection…",
  "Set Layer Precision…", "Set TensorRT Optimization Profile…",
];

const READ_ONLY_ITEMS = new Set([
  "Go to source", "Go to destination", "Arrange", "Fit to view",
  "Export as PNG", "Export as PNG (transparent)", "Export as SVG", "Export as JPEG",
]);

export function installMenu(ctx: CanvasContext): void {
  const close = closeMenu;
  ctx.listeners.add(close);

  ctx.listeners.cy(ctx.cy, "cxttap", null, (event) => {
    closeMenu();
    const target = event.target;
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
      items.push(...ctx.overlays.menuItems(target.id())); // Add/Remove Breakpoint while analysing, TensorRT settings
      if (data) items.push(...childItems(ctx, data));
      items.push({ label: "Delete", run: () => actions.delete(ctx) });
      items.push({ label: "Copy", run: () => actions.copy(ctx) });
      items.push({ label: "Cut", run: () => actions.cut(ctx) });
      items.push({ label: "Paste", run: () => actions.paste(ctx) });
      if (data?.kind === "op") items.push({ label: `Go to documentation (${data.op_type})`, run: () => void actions.documentation(ctx, data.id) });
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
      items.push({ label: "Export as PNG (transparent)", run: () => download(ctx, "png", "transparent") });
      items.push({ label: "Export as SVG", run: () => download(ctx, "svg") });
      items.push({ label: "Export as JPEG", run: () => download(ctx, "jpg") });
    }
    const locked = String(ctx.model.get("editing_locked") ?? "");
    if (locked && ctx.root.dataset.readOnly !== "1") {
      const kept = items.filter((item) => !EDIT_ITEMS.includes(item.label));
      items.length = 0;
      items.push({ label: `Read-only: ${locked}`, run: () => undefined, disabled: true }, ...kept);
    }
    if (ctx.root.dataset.readOnly === "1") {
      // A read-only canvas (a TensorRT engine graph) offers no edit; a gesture that edits anyway (Delete, a drag)
      // is refused by the kernel with a toast.
      const kept = items.filter((item) => READ_ONLY_ITEMS.has(item.label));
      items.length = 0;
      if (target !== ctx.cy) items.push({ label: "Read-only engine graph", run: () => undefined, disabled: true });
      items.push(...kept);
      if (!kept.some((item) => item.label === "Fit to view")) items.push({ label: "Fit to view", run: () => actions.fit(ctx) });
    }
    popupMenu(ctx, items, event.renderedPosition ?? { x: 0, y: 0 });
  });
  ctx.listeners.cy(ctx.cy, "tap viewport", null, close);
  ctx.listeners.dom(ctx.root, "contextmenu", (e: MouseEvent) => e.preventDefault());
}
