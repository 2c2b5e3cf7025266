// The log view in jsdom: increments rebuild the kernel's kept text (drop from the front, append), a replace resets
// it, every view shows the same text and says hello when it starts, and cleanup removes every listener.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel, installListenerCensus, ListenerCensus } from "../../common/testing";
import widget, { droppedMarker } from "./log_view";

const step = (kind: string, text: string, drop = 0, lines = 0, chars = 0) =>
  ({ kind, text, drop, dropped_lines: lines, dropped_chars: chars });

describe("tool log view", () => {
  let census: ListenerCensus;
  beforeEach(() => {
    census = installListenerCensus();
  });
  afterEach(() => vi.restoreAllMocks());

  it("applies increments to every view and cleans up", () => {
    const model = new FakeModel();
    model.state = { height: "120px" };
    const before = census.total();
    const views = [0, 1].map(() => {
      const el = document.createElement("div");
      document.body.appendChild(el);
      return { el, cleanup: widget.render({ model, el } as never) as () => void };
    });
    expect(model.sent).toEqual([{ kind: "hello" }, { kind: "hello" }]); // each view asks for the kept log
    const text = (i: number) => (views[i].el.querySelector("textarea") as HTMLTextAreaElement).value;
    model.emit("msg:custom", step("replace", "a\nb\n"));
    model.emit("msg:custom", step("append", "c\n", 2, 1, 2));
    expect(text(0)).toBe(droppedMarker(1, 2) + "b\nc\n");
    expect(text(1)).toBe(text(0));
    expect(text(0).startsWith("… earlier output dropped (1 lines, 2 characters")).toBe(true);
    model.emit("msg:custom", step("replace", ""));
    expect(text(1)).toBe("");
    expect((views[0].el.querySelector("textarea") as HTMLTextAreaElement).style.height).toBe("120px");
    views.forEach((v) => v.cleanup());
    expect(census.total()).toBe(before);
    expect(model.count()).toBe(0);
  });
});
