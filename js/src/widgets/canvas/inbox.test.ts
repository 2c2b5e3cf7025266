// The kernel's messages reach a view over two paths (comm, fast channel); the inbox applies each once, in order.
import { describe, expect, it, vi } from "vitest";

import { Inbox } from "./inbox";
import { decodeMessage, encodeMessage, relayUrl } from "./fast_channel";

type M = { kind: string; seq?: number };

function inbox(gapMs = 10_000) {
  const got: number[] = [];
  const gaps = vi.fn();
  const box = new Inbox<M, null>((m) => got.push(m.seq ?? -1), gaps, gapMs);
  return { box, got, gaps };
}

describe("Inbox", () => {
  it("waits for the first snapshot, then applies in sequence order, dropping duplicates", () => {
    const { box, got } = inbox();
    box.receive({ kind: "patch", seq: 1 }, null); // before any snapshot: nothing to patch
    box.receive({ kind: "snapshot", seq: 2 }, null);
    box.receive({ kind: "patch", seq: 4 }, null); // early: waits for 3
    expect(got).toEqual([2]);
    expect(box.waiting).toBe(1);
    box.receive({ kind: "reply", seq: 3 }, null);
    expect(got).toEqual([2, 3, 4]);
    box.receive({ kind: "patch", seq: 4 }, null); // the same message over the other path
    box.receive({ kind: "patch", seq: 3 }, null);
    expect(got).toEqual([2, 3, 4]);
    box.receive({ kind: "attached" }, null); // unsequenced: at once
    expect(got).toEqual([2, 3, 4, -1]);
  });

  it("lets a snapshot replace whatever it is ahead of", () => {
    const { box, got } = inbox();
    box.receive({ kind: "snapshot", seq: 1 }, null);
    box.receive({ kind: "patch", seq: 5 }, null);
    box.receive({ kind: "snapshot", seq: 4 }, null); // 2 and 3 were lost with a socket: the snapshot covers them
    expect(got).toEqual([1, 4, 5]);
    expect(box.waiting).toBe(0);
  });

  it("asks for a resync when a gap does not fill", async () => {
    const { box, gaps } = inbox(20);
    box.receive({ kind: "snapshot", seq: 1 }, null);
    box.receive({ kind: "patch", seq: 3 }, null);
    await new Promise((r) => setTimeout(r, 60));
    expect(gaps).toHaveBeenCalledTimes(1);
    box.dispose();
  });
});

describe("fast channel frames", () => {
  it("round-trip JSON and buffers", () => {
    const a = new Float32Array([1, 2, 3]).buffer;
    const b = new Uint8Array([9]).buffer;
    const { content, buffers } = decodeMessage(encodeMessage({ kind: "intent", name: "é" }, [a, b]).buffer as ArrayBuffer);
    expect(content).toEqual({ kind: "intent", name: "é" });
    expect(Array.from(new Float32Array(buffers[0].buffer.slice(buffers[0].byteOffset, buffers[0].byteOffset + 12)))).toEqual([1, 2, 3]);
    expect(buffers[1].getUint8(0)).toBe(9);
  });

  it("finds the relay from JupyterLab's page config, and nothing outside JupyterLab", () => {
    expect(relayUrl("ab", document)).toBeNull();
    const node = document.createElement("script");
    node.id = "jupyter-config-data";
    node.type = "application/json"; // as JupyterLab writes it (jsdom would run it otherwise)
    node.textContent = JSON.stringify({ baseUrl: "/user/ann/", token: "t k" });
    document.body.appendChild(node);
    expect(relayUrl("ab", document)).toBe(`ws://${document.location.host}/user/ann/dld/channel/ab?token=t%20k`);
    expect(relayUrl("", document)).toBeNull();
    node.remove();
  });
});
