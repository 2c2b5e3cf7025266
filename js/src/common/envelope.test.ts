import { describe, expect, it } from "vitest";

import { PendingRequests, Reply, unwrap } from "./envelope";

describe("envelope", () => {
  it("numbers requests and settles each with its own reply", async () => {
    const pending = new PendingRequests();
    const [first, firstReply] = pending.open();
    const [second, secondReply] = pending.open();
    expect([first, second]).toEqual([1, 2]);
    expect(pending.settle({ request: second, ok: true, error: null, data: { label: "Add Relu" } })).toBe(true);
    expect(pending.settle({ request: 99, ok: true, error: null, data: null })).toBe(false);
    expect(unwrap(await secondReply)).toEqual({ label: "Add Relu" });
    expect(pending.size).toBe(1);
    pending.failAll("the kernel went away");
    const failed = await firstReply;
    expect(failed).toEqual({ request: first, ok: false, error: "the kernel went away", data: null });
    expect(() => unwrap(failed)).toThrow("the kernel went away");
    expect(pending.size).toBe(0);
    pending.open();
    pending.clear();
    expect(pending.size).toBe(0);
  });

  it("matches the Python envelope's field names", () => {
    // dld_jupyter/formats/envelope.py: ok(7, {...}) and failed(7, "...") build exactly these.
    const ok: Reply = { request: 7, ok: true, error: null, data: { path: "m.onnx" } };
    const failed: Reply = { request: 7, ok: false, error: "Save: no path.", data: null };
    expect(Object.keys(ok).sort()).toEqual(["data", "error", "ok", "request"]);
    expect(Object.keys(failed).sort()).toEqual(Object.keys(ok).sort());
  });
});
