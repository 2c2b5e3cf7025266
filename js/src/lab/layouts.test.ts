import { CommandRegistry } from "@lumino/commands";
import { beforeAll, describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};
type Module = typeof import("./layouts");
let lm: Module;
let sb: typeof import("./side_bars");
let MenuClass: typeof import("@lumino/widgets").Menu;

beforeAll(async () => {
  lm = await import("./layouts");
  sb = await import("./side_bars");
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
    widthOf: (side: string) => (side === "left" && !shell.leftCollapsed ? 312.4 : null),
    setWidth: (side: string, px: number) => calls.push(`width ${side} ${px}`),
  };
  return { shell, calls };
}

describe("DL Designer layouts", () => {
  it("keeps the well-formed layouts of the settings, and only well-formed side bar states", () => {
    const found = lm.layoutsOf({
      layouts: [
        { name: "Wide", dock: {}, shell: { left: { collapsed: false, current: "filebrowser", width: 300 }, right: { collapsed: "no" } } },
        { name: "Huge", dock: {}, shell: { left: { collapsed: false, current: null, width: 1e9 } } },
        { name: "" },
        { dock: {} },
        null,
        { name: "<img src=x onerror=alert(1)>", dock: {} },
      ],
    });
    expect(found).toEqual([
      { name: "Wide", shell: { left: { collapsed: false, current: "filebrowser", width: 300 } } },
      { name: "Huge", shell: { left: { collapsed: false, current: null } } },
      { name: "<img src=x onerror=alert(1)>", shell: {} },
    ]);
    expect(lm.layoutsOf({})).toEqual([]);
  });

  it("captures the side bars and applies them back, widths once the bars are laid out", async () => {
    const { shell, calls } = fakeShell("filebrowser", false);
    const state = sb.captureShell(shell);
    expect(state).toEqual({
      left: { collapsed: false, current: "filebrowser", width: 312 },
      right: { collapsed: true, current: null },
    });
    const frames: string[] = [];
    await sb.applyShell(shell, state, async () => void frames.push(`frame after ${calls.length}`));
    expect(calls).toEqual(["activate filebrowser", "expandLeft", "collapseRight", "width left 312"]);
    expect(frames).toEqual(["frame after 3"]);
    calls.length = 0;
    await sb.applyShell(shell, { left: { collapsed: true, current: "filebrowser", width: 200 } }, async () => undefined);
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
    lm.fillApplyMenu(menu, [{ name: "Wide", shell: {} }], lm.LayoutCommandIds.delete);
    expect(menu.items.map((i) => [i.command, i.args.name])).toEqual([[lm.LayoutCommandIds.delete, "Wide"]]);
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
    expect(sent[2]).toEqual(["save_layout", { name: "Mine", shell: sb.captureShell(shell) }]);
    await commands.execute(lm.LayoutCommandIds.delete, { name: "Wide" });
    expect(sent[3]).toEqual(["delete_layout", { name: "Wide" }]);
  });
});
