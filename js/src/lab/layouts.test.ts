import { CommandRegistry } from "@lumino/commands";
import { beforeAll, describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};
type Module = typeof import("./layouts");
let lm: Module;
let MenuClass: typeof import("@lumino/widgets").Menu;

beforeAll(async () => {
  lm = await import("./layouts");
  MenuClass = (await import("@lumino/widgets")).Menu;
});

/** A shell that records what was asked of it. */
function fakeShell(left: string | null, leftCollapsed: boolean) {
  const calls: string[] = [];
  const shell = {
    leftCollapsed,
    rightCollapsed: true,
    collapseLeft: () => calls.push("collapseLeft"),
    collapseRight: () => calls.push("collapseRight"),
    expandLeft: () => calls.push("expandLeft"),
    expandRight: () => calls.push("expandRight"),
    activateById: (id: string) => calls.push(`activate ${id}`),
    saveLayout: () => ({ leftArea: { currentWidget: left ? { id: left } : null }, rightArea: { currentWidget: null } }),
  };
  return { shell, calls };
}

describe("DL Designer layouts", () => {
  it("keeps the well-formed layouts of the settings, and only well-formed side bar states", () => {
    const found = lm.layoutsOf({
      layouts: [
        { name: "Wide", dock: {}, shell: { left: { collapsed: false, current: "filebrowser" }, right: { collapsed: "no" } } },
        { name: "" },
        { dock: {} },
        null,
        { name: "<img src=x onerror=alert(1)>", dock: {} },
      ],
    });
    expect(found).toEqual([
      { name: "Wide", shell: { left: { collapsed: false, current: "filebrowser" } } },
      { name: "<img src=x onerror=alert(1)>", shell: {} },
    ]);
    expect(lm.layoutsOf({})).toEqual([]);
  });

  it("captures the side bars and applies them back", () => {
    const { shell, calls } = fakeShell("filebrowser", false);
    const state = lm.captureShell(shell);
    expect(state).toEqual({ left: { collapsed: false, current: "filebrowser" }, right: { collapsed: true, current: null } });
    lm.applyShell(shell, state);
    expect(calls).toEqual(["activate filebrowser", "expandLeft", "collapseRight"]);
    calls.length = 0;
    lm.applyShell(shell, { left: { collapsed: true, current: "filebrowser" } });
    expect(calls).toEqual(["collapseLeft"]);
  });

  it("lists one Apply entry per layout (its name is a label, never markup), or Save Layout when there is none", () => {
    const menu = new MenuClass({ commands: new CommandRegistry() });
    lm.fillApplyMenu(menu, [{ name: "Wide", shell: {} }, { name: "<b>Below</b>", shell: {} }]);
    expect(menu.items.map((i) => [i.command, i.args.name])).toEqual([
      [lm.LayoutCommandIds.apply, "Wide"],
      [lm.LayoutCommandIds.apply, "<b>Below</b>"],
    ]);
    lm.fillApplyMenu(menu, []);
    expect(menu.items.map((i) => i.command)).toEqual([lm.LayoutCommandIds.save]);
  });

  it("applies the designer's part through the kernel, then the side bars from the settings", async () => {
    const commands = new CommandRegistry();
    const sent: Array<[string, unknown]> = [];
    const designer = { isBound: true, tab: () => null, command: async (name: string, args?: unknown) => (sent.push([name, args]), true) };
    const { shell, calls } = fakeShell(null, false);
    const store = { layouts: () => [{ name: "Wide", shell: { left: { collapsed: true, current: null } } }], reload: async () => undefined, askName: async () => "  Mine " };
    lm.registerLayoutCommands(commands, designer as never, shell, store);
    expect(commands.label(lm.LayoutCommandIds.apply, { name: "Wide", palette: true })).toBe("Apply Layout: Wide");
    await commands.execute(lm.LayoutCommandIds.apply, { name: "Wide" });
    expect(sent).toEqual([["apply_layout", { name: "Wide" }]]);
    expect(calls).toEqual(["collapseLeft"]);
    await commands.execute(lm.LayoutCommandIds.reset);
    expect(sent[1]).toEqual(["reset_layout", undefined]);
    expect(calls.slice(1)).toEqual(["activate dld-jupyter-sidebar", "expandLeft", "collapseRight"]);
    await commands.execute(lm.LayoutCommandIds.save);
    expect(sent[2]).toEqual(["save_layout", { name: "Mine", shell: lm.captureShell(shell) }]);
  });
});
