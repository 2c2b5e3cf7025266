import { afterEach, describe, expect, it, vi } from "vitest";

import { noReplyError, PendingRequests, Reply, unwrap } from "./envelope";

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

  describe("a request without a reply", () => {
    afterEach(() => vi.useRealTimers());

    it("fails with a clear error after its timeout, and its late reply is ignored", async () => {
      vi.useFakeTimers();
      const pending = new PendingRequests(5_000);
      const [request, reply] = pending.open();
      const [, answered] = pending.open(60_000);
      vi.advanceTimersByTime(4_999);
      expect(pending.size).toBe(2);
      vi.advanceTimersByTime(1);
      expect(await reply).toEqual({ request, ok: false, error: noReplyError(5), data: null });
      expect(noReplyError(5)).toMatch(/did not answer within 5 s: .* try again/);
      expect(pending.settle({ request, ok: true, error: null, data: { late: true } })).toBe(false);
      expect(pending.size).toBe(1); // the other one, with a longer timeout, still waits
      expect(pending.settle({ request: request + 1, ok: true, error: null, data: null })).toBe(true);
      expect((await answered).ok).toBe(true);
      expect(vi.getTimerCount()).toBe(0); // settled and timed-out requests leave no timer behind
    });

    it("leaves no timer behind when failed or forgotten", () => {
      vi.useFakeTimers();
      const pending = new PendingRequests();
      pending.open();
      pending.failAll("closing");
      pending.open();
      pending.clear();
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
