import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FIRST_RETRY_MS, MAX_RETRY_MS } from "./bind_watch";
import { DesignerConnection, PanelLike } from "./connection";
import type { FromKernel } from "./messages";

/** A comm whose open the kernel takes when the test says so (`take`), as a real kernel's idle for it does. */
class FakeComm {
  sent: Array<{ kind: string; [key: string]: unknown }> = [];
  isDisposed = false;
  onMsg: (msg: { content: { data: unknown } }) => void = () => undefined;
  onClose: () => void = () => undefined;
  opened = false;
  take: () => void = () => undefined;
  open() {
    this.opened = true;
    return { done: new Promise<void>((resolve) => (this.take = resolve)) };
  }
  send(data: { kind: string }) {
    this.sent.push(data);
  }
  close() {
    this.isDisposed = true;
  }
  kinds() {
    return this.sent.map((m) => m.kind);
  }
  answer(message: FromKernel) {
    this.onMsg({ content: { data: message } });
  }
}

const signal = () => ({ connect: () => undefined, disconnect: () => undefined });

function fixture(modelIds: string[]) {
  const comm = new FakeComm();
  const kernel = {
    id: "k1",
    status: "idle",
    requestExecute: () => ({
      done: Promise.resolve({
        content: { status: "ok", user_expressions: { registered: { data: { "text/plain": "True" } } } },
      }),
    }),
    createComm: () => comm,
  };
  const cell = {
    model: { outputs: { length: modelIds.length, get: (i: number) => ({ data: { "application/vnd.jupyter.widget-view+json": { model_id: modelIds[i] } } }) } },
    outputArea: { widgets: modelIds.map(() => ({ node: document.createElement("div") })) },
  };
  const panel = {
    id: "nb1",
    node: document.createElement("div"),
    content: { widgets: [cell] },
    sessionContext: { session: { kernel }, statusChanged: signal(), kernelChanged: signal() },
  } as unknown as PanelLike;
  const messages: FromKernel[] = [];
  const phases: string[] = [];
  const connection: DesignerConnection = new DesignerConnection({
    message: (message) => {
      messages.push(message);
      if (message.kind === "designers") connection.chooseDesigner(message.items);
    },
    status: () => undefined,
    connected: () => undefined,
    phase: (text) => phases.push(text),
  });
  return { comm, kernel, panel, connection, messages, phases };
}

/** Let `ms` pass, then what a retry started then (a look at the tab "at once": 1 ms later under fake timers). */
async function wait(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await vi.advanceTimersByTimeAsync(1);
}

const ITEM = { model_id: "m1", title: "resnet8", path: "resnet8.onnx" };

describe("the sidebar's connection to a designer's kernel", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends nothing on the comm until the kernel has taken its open", async () => {
    // JupyterLab sends a comm's messages to a subshell once it has one, while the open went to the main shell:
    // a hello sent at once could reach the kernel before the open, which drops it (seen on loaded CI machines).
    const { comm, panel, connection, phases } = fixture(["m1"]);
    connection.setPanel(panel);
    await vi.advanceTimersByTimeAsync(0);
    expect(comm.opened).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(comm.sent).toEqual([]);
    expect(phases.at(-1)).toBe("comm open sent");
    comm.take();
    await vi.advanceTimersByTimeAsync(0);
    expect(comm.kinds()).toEqual(["hello"]);
    expect(phases.at(-1)).toBe("hello sent: m1");
    connection.dispose();
  });

  it("asks again, later and later, when a hello or a bind gets no answer, and stops once bound", async () => {
    const { comm, panel, connection, phases } = fixture(["m1"]);
    connection.setPanel(panel);
    await vi.advanceTimersByTimeAsync(0);
    comm.take();
    await vi.advanceTimersByTimeAsync(0);
    expect(comm.kinds()).toEqual(["hello"]); // lost on the way: no designers comes
    await vi.advanceTimersByTimeAsync(FIRST_RETRY_MS - 1);
    expect(comm.kinds()).toEqual(["hello"]);
    await wait(1);
    expect(comm.kinds()).toEqual(["hello", "hello"]);
    await wait(2 * FIRST_RETRY_MS); // the next wait is twice as long
    expect(comm.kinds()).toEqual(["hello", "hello", "hello"]);
    comm.answer({ kind: "designers", items: [ITEM] });
    expect(comm.kinds().at(-1)).toBe("bind");
    expect(phases.at(-1)).toBe("bind sent: m1");
    await wait(FIRST_RETRY_MS); // the bind is lost too: the hello, then the bind again
    comm.answer({ kind: "designers", items: [ITEM] });
    expect(comm.kinds().slice(-2)).toEqual(["hello", "bind"]);
    comm.answer({ kind: "loading", model_id: "m1", title: "resnet8", path: "resnet8.onnx" });
    expect(phases.at(-1)).toBe("loading m1");
    const asked = comm.sent.length;
    await vi.advanceTimersByTimeAsync(10 * MAX_RETRY_MS);
    expect(comm.sent.length).toBe(asked); // the kernel has the bind: nothing more while the model loads
    connection.dispose();
  });

  it("waits while the kernel runs a cell, and never asks twice at once", async () => {
    const { comm, kernel, panel, connection } = fixture(["m1"]);
    connection.setPanel(panel);
    await vi.advanceTimersByTimeAsync(0);
    comm.take();
    await vi.advanceTimersByTimeAsync(0);
    kernel.status = "busy";
    await vi.advanceTimersByTimeAsync(10 * MAX_RETRY_MS);
    expect(comm.kinds()).toEqual(["hello"]);
    kernel.status = "idle";
    await wait(FIRST_RETRY_MS);
    expect(comm.kinds()).toEqual(["hello", "hello"]);
    comm.answer({ kind: "designers", items: [] }); // none of the outputs is a designer: nothing to ask again
    await vi.advanceTimersByTimeAsync(10 * MAX_RETRY_MS);
    expect(comm.kinds()).toEqual(["hello", "hello"]);
    connection.dispose();
  });

  it("gives up a comm whose open the kernel never takes, and asks again", async () => {
    const { comm, panel, connection, phases } = fixture(["m1"]);
    connection.setPanel(panel);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(comm.isDisposed).toBe(true);
    expect(phases).toContain("no answer to the comm's open in 60 s");
    connection.dispose();
  });
});
