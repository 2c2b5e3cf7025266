// The menu builder both JupyterLab menus use (Tools, View → DL Designer Layouts): entries in order, separators and
// submenus in place, and `opening` called each time the menu is attached (opened), where the settings are read again.
import { CommandRegistry } from "@lumino/commands";
import { beforeAll, describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};
let mb: typeof import("./menu_builder");
let widgets: typeof import("@lumino/widgets");

beforeAll(async () => {
  mb = await import("./menu_builder");
  widgets = await import("@lumino/widgets");
});

describe("menu builder", () => {
  it("builds entries, separators and submenus in order, and reads again on each opening", () => {
    const commands = new CommandRegistry();
    const sub = mb.buildMenu(commands, { id: "sub", label: "Sub" });
    let opened = 0;
    const menu = mb.buildMenu(commands, { id: "top", label: "Top", entries: ["a:one", "-", "a:two", sub], opening: () => opened++ });
    expect([menu.id, menu.title.label]).toEqual(["top", "Top"]);
    expect(menu.items.map((i) => [i.type, i.type === "command" ? i.command : i.submenu?.id ?? ""])).toEqual([
      ["command", "a:one"], ["separator", ""], ["command", "a:two"], ["submenu", "sub"],
    ]);
    expect(sub).not.toBeInstanceOf(mb.OpeningMenu); // nothing to read again: a plain menu
    widgets.Widget.attach(menu, document.body);
    widgets.Widget.detach(menu);
    widgets.Widget.attach(menu, document.body);
    expect(opened).toBe(2);
    widgets.Widget.detach(menu);
  });

  it("lists one entry per listed thing, or the fallback when there is none", () => {
    const menu = mb.buildMenu(new CommandRegistry(), { id: "list", label: "List" });
    mb.fillListing(menu, "run", [{ tool: "A" }, { tool: "B" }], "create");
    expect(menu.items.map((i) => [i.command, i.args.tool])).toEqual([["run", "A"], ["run", "B"]]);
    mb.fillListing(menu, "run", [], "create");
    expect(menu.items.map((i) => i.command)).toEqual(["create"]);
  });
});
