import { describe, expect, it } from "vitest";

import { TabLink } from "./tab_link";

const signal = () => ({ connect: () => undefined, disconnect: () => undefined });

describe("a designer tab's link to its kernel", () => {
  it("sends nothing on its comm until the kernel has handled the comm's open, then all in order", async () => {
    // A message sent at once could reach the kernel first, on the subshell JupyterLab gives the comm meanwhile,
    // and be dropped: a Save right after the tab opened would never be answered.
    const sent: string[] = [];
    let take: () => void = () => undefined;
    const comm = {
      isDisposed: false,
      onMsg: null,
      onClose: null,
      open: () => ({ done: new Promise<void>((resolve) => (take = resolve)) }),
      send: (data: { kind: string }) => sent.push(data.kind),
      close: () => undefined,
    };
    const kernel = { id: "k1", statusChanged: signal(), connectionStatusChanged: signal(), iopubMessage: signal(), createComm: () => comm };
    const context = { kernelChanged: signal(), sessionChanged: signal() };
    const link = new TabLink("tab.onnx", () => undefined);
    link.open(kernel as never, kernel as never, context as never, () => undefined);
    link.send({ kind: "model_picked", path: "a.onnx" });
    void link.save({ kind: "save", path: null });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toEqual([]);
    take();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toEqual(["model_picked", "save"]);
    link.close();
  });
});
