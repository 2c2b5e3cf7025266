import { describe, expect, it } from "vitest";

import type { NodeData } from "../../common/protocol";
import { parseSlot } from "./child_menu";
import { BUTTON, INSET, onOpenButton } from "./subgraph_button";

const loop = { width: 120, height: 50 } as NodeData;

describe("subgraph slots and the glyph's open button", () => {
  it("parses a subgraph attribute and its list index", () => {
    expect(parseSlot("body")).toEqual({ attribute: "body", index: null });
    expect(parseSlot("branches[2]")).toEqual({ attribute: "branches", index: 2 });
    expect(parseSlot("then_branch")).toEqual({ attribute: "then_branch", index: null });
  });

  it("hits the button in the top-right corner only", () => {
    const right = 60 - INSET;
    const top = -25 + INSET;
    expect(onOpenButton(loop, 0, 0, right - BUTTON / 2, top + BUTTON / 2)).toBe(true);
    expect(onOpenButton(loop, 100, 100, 100 + right - 1, 100 + top + 1)).toBe(true);
    expect(onOpenButton(loop, 0, 0, 0, 0)).toBe(false); // the glyph's centre
    expect(onOpenButton(loop, 0, 0, -right + 2, top + 2)).toBe(false); // top-left corner
    expect(onOpenButton(loop, 0, 0, right - 2, 20)).toBe(false); // bottom-right corner
  });
});
