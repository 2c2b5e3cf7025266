// Group labels never draw over each other (issue 26): `crowded` hides the lower-ranked of two colliding labels.
import { describe, expect, it } from "vitest";

import { crowded, insideTop, LabelBox } from "./readability";

const box = (id: string, rank: number, x1: number, y1: number, w = 100, h = 20): LabelBox => ({ id, rank, x1, y1, x2: x1 + w, y2: y1 + h });

describe("group label declutter", () => {
  it("keeps the higher-ranked of two colliding labels, and every label with room", () => {
    const parent = box("layers.0", 1e9 + 66, 0, 0, 160);
    const child = box("input_layernorm", 7, 40, 10);
    const neighbour = box("rotary_emb", 6, 150, 5);
    const apart = box("norm", 7, 0, 300);
    expect([...crowded([child, neighbour, apart, parent])].sort()).toEqual(["input_layernorm", "rotary_emb"]);
  });

  it("hides nothing when labels only touch within the gap's allowance apart", () => {
    expect(crowded([box("a", 1, 0, 0), box("b", 1, 0, 23)]).size).toBe(0);
    expect(crowded([box("a", 1, 0, 0), box("b", 1, 0, 21)])).toEqual(new Set(["b"]));
  });

  it("a chain of collisions: a label hidden by a kept one does not hide others", () => {
    const labels = [box("big", 10, 0, 0), box("mid", 5, 0, 15), box("low", 1, 0, 30)];
    expect(crowded(labels)).toEqual(new Set(["mid"])); // "low" crosses only "mid", which is not drawn
  });

  it("puts an expanded group's label inside its top padding at every font", () => {
    for (const font of [13, 14, 30, 60]) expect(insideTop(font)).toBeGreaterThan(font);
  });
});
