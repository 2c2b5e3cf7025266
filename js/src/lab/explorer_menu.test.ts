import { afterEach, describe, expect, it } from "vitest";

import { showExplorerMenu } from "./explorer_menu";

type Sent = [string, Record<string, unknown>];

function open(ids: string[]): { sent: Sent[]; labels: string[]; click(label: string): void } {
  const sent: Sent[] = [];
  showExplorerMenu(ids, new MouseEvent("contextmenu", { clientX: 10, clientY: 10 }), (name, args) => sent.push([name, args]));
  const items = () => [...document.querySelectorAll<HTMLElement>(".dld-ExplorerMenu-item")];
  return {
    sent,
    labels: items().map((i) => i.textContent ?? ""),
    click: (label) => items().find((i) => i.textContent === label)?.click(),
  };
}

describe("layer explorer menu", () => {
  afterEach(() => document.body.replaceChildren());

  it("adds a breakpoint on the selected layers, as the canvas menu does", () => {
    const menu = open(["n3", "n7"]);
    expect(menu.labels).toContain("Add Breakpoint (2 layers)");
    expect(menu.labels).toContain("Remove Breakpoint (2 layers)");
    menu.click("Add Breakpoint (2 layers)");
    expect(menu.sent).toEqual([["add_breakpoint", { nodes: ["n3", "n7"] }]]);
  });

  it("removes the breakpoint of one layer", () => {
    const menu = open(["n3"]);
    menu.click("Remove Breakpoint");
    expect(menu.sent).toEqual([["remove_breakpoint", { nodes: ["n3"] }]]);
  });
});

describe("layer explorer breakpoint badge", () => {
  it("badges the rows of the analysis's breakpoints, and none once it stops", async () => {
    const { LayerExplorer } = await import("./explorer");
    const explorer = new LayerExplorer({ select: () => undefined, focus: () => undefined });
    document.body.append(explorer.node);
    explorer.store.load({ ids: ["n1", "n2"], names: ["conv", "relu"], types: ["Conv", "Relu"], domains: ["", ""],
      precisions: ["", ""], constants: [false, false] });
    explorer.update({ organize: "name" });
    explorer.setBreakpoints(["n2"]);
    explorer.refresh();
    const badged = () => [...explorer.node.querySelectorAll<HTMLElement>(".dld-mod-breakpoint")].map((r) => r.dataset.id);
    expect(badged()).toEqual(["n2"]);
    expect(explorer.node.querySelectorAll(".dld-Explorer-breakpoint").length).toBe(1);
    explorer.setBreakpoints([]);
    explorer.refresh();
    expect(badged()).toEqual([]);
  });
});
