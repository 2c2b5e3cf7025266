import { CommandRegistry } from "@lumino/commands";
import { beforeAll, describe, expect, it } from "vitest";

// jsdom has no DragEvent, which @lumino/dragdrop (imported by @lumino/widgets) subclasses when it loads.
(globalThis as unknown as { DragEvent: unknown }).DragEvent ??= class extends MouseEvent {};
type Module = typeof import("./tools_menu");
let tm: Module;
let MenuClass: typeof import("@lumino/widgets").Menu;

beforeAll(async () => {
  tm = await import("./tools_menu");
  MenuClass = (await import("@lumino/widgets")).Menu;
});

describe("User Tools submenu", () => {
  it("keeps only well-formed tools of the settings", () => {
    const tools = tm.userToolsOf({
      userTools: [{ name: "Copy", application: "/usr/bin/python3", arguments: ["$Model"] }, { name: 3 }, null],
    });
    expect(tools.map((t) => t.name)).toEqual(["Copy"]);
    expect(tm.userToolsOf({})).toEqual([]);
  });

  it("lists one run entry per tool, or Custom Tools when there is none", () => {
    const menu = new MenuClass({ commands: new CommandRegistry() });
    tm.fillUserTools(menu, [
      { name: "A", application: "a" },
      { name: "B", application: "b" },
    ]);
    expect(menu.items.map((i) => [i.command, i.args.tool])).toEqual([
      [tm.ToolCommandIds.runUserTool, "A"],
      [tm.ToolCommandIds.runUserTool, "B"],
    ]);
    tm.fillUserTools(menu, []);
    expect(menu.items.map((i) => i.command)).toEqual([tm.ToolCommandIds.customTools]);
  });
});
