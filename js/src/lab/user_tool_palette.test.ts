import { CommandRegistry } from "@lumino/commands";
import { beforeAll, describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};
let cp: typeof import("./user_tool_palette");
let tm: typeof import("./tools_menu");

beforeAll(async () => {
  cp = await import("./user_tool_palette");
  tm = await import("./tools_menu");
});

/** The slice of ICommandPalette the user-tool items use: what is listed now. */
function fakePalette(listed: Array<{ command: string; args?: unknown; category: string }>) {
  return {
    placeholder: "",
    addItem(item: { command: string; args?: unknown; category: string }) {
      listed.push(item);
      return { isDisposed: false, dispose: () => listed.splice(listed.indexOf(item), 1) };
    },
    activate() {},
  };
}

describe("user tools in the command palette", () => {
  it("lists one entry per user tool and follows the setting", () => {
    const listed: Array<{ command: string; args?: unknown; category: string }> = [];
    const items = new cp.UserToolPaletteItems(fakePalette(listed) as never);
    items.update([{ name: "Copy", application: "cp" }, { name: "Strip", application: "strip" }]);
    expect(listed.map((i) => [i.command, (i.args as { tool: string }).tool, i.category])).toEqual([
      [tm.ToolCommandIds.runUserTool, "Copy", cp.PALETTE_CATEGORY],
      [tm.ToolCommandIds.runUserTool, "Strip", cp.PALETTE_CATEGORY],
    ]);
    items.update([{ name: "Strip", application: "strip" }]);
    expect(listed.map((i) => (i.args as { tool: string }).tool)).toEqual(["Strip"]);
  });

  it("labels a palette entry as a user tool, a menu entry by its name", () => {
    const commands = new CommandRegistry();
    tm.registerToolCommands({ commands } as never, { isBound: true, command: () => undefined } as never);
    expect(commands.label(tm.ToolCommandIds.runUserTool, { tool: "Copy", palette: true })).toBe("User Tool: Copy");
    expect(commands.label(tm.ToolCommandIds.runUserTool, { tool: "Copy" })).toBe("Copy");
  });

  it("reloads the settings each time the palette opens", async () => {
    const commands = new CommandRegistry();
    commands.addCommand(cp.OPEN_PALETTE_COMMAND, { execute: () => undefined });
    commands.addCommand("other", { execute: () => undefined });
    let reloads = 0;
    cp.reloadWhenPaletteOpens(commands, () => reloads++);
    await commands.execute("other");
    await commands.execute(cp.OPEN_PALETTE_COMMAND);
    expect(reloads).toBe(1);
  });
});
