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
