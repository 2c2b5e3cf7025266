import { afterEach, describe, expect, it } from "vitest";

import type { CanvasContext } from "./context";
import { installKeys } from "./keys";
import { Listeners } from "./listeners";
import type { QuickAdd } from "./quickadd";

function canvasInCell(): { cell: HTMLElement; root: HTMLElement; stage: HTMLElement; listeners: Listeners } {
  const cell = document.createElement("div");
  cell.tabIndex = -1; // the notebook cell, which Lumino focuses when the click activates it
  const root = document.createElement("div");
  root.tabIndex = 0;
  const stage = document.createElement("div");
  root.append(stage);
  cell.append(root);
  document.body.append(cell);
  const listeners = new Listeners(() => undefined);
  installKeys({ root, stage, listeners, cy: {} } as unknown as CanvasContext, {} as QuickAdd);
  return { cell, root, stage, listeners };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("canvas focus after a click", () => {
  afterEach(() => document.body.replaceChildren());

  it("takes the focus back from the cell that took it after the click's timers", async () => {
    const { cell, root, stage, listeners } = canvasInCell();
    stage.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
    stage.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
    await later(200); // past both timers: a busy page's cell activation comes later still
    cell.focus();
    expect(document.activeElement).toBe(root);
    listeners.dispose();
  });

  it("leaves the focus where a press elsewhere put it", async () => {
    const { cell, stage, listeners } = canvasInCell();
    stage.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
    await later(200);
    cell.dispatchEvent(new MouseEvent("pointerdown", { bubbles: true }));
    cell.focus();
    expect(document.activeElement).toBe(cell);
    listeners.dispose();
  });
});
