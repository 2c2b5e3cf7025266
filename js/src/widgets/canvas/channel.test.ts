// The canvas's fast channel after its kernel is gone (issue 31, finding 8): the relay closes a channel whose socket no
// longer exists with GONE, and the canvas stops there, where it used to retry and fill the server log with its URL.
// WebSocket is the browser's object, played here by a scripted stand-in that answers as the relay does.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AnyModel } from "@anywidget/types";

import { noReplyError, REPLY_TIMEOUT_MS } from "../../common/envelope";
import { Channel } from "./channel";
import { GONE } from "./fast_channel";
import { Toasts } from "./toasts";

type Answer = "open" | "gone" | "refused";

class RelaySocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 3;
  static made: { url: string; at: number; socket: RelaySocket }[] = [];
  static answer: (n: number) => Answer = () => "open";

  readyState = RelaySocket.CONNECTING;
  binaryType = "blob";
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onmessage: ((event: unknown) => void) | null = null;
  sent = 0;

  constructor(readonly url: string) {
    const n = RelaySocket.made.push({ url, at: Date.now(), socket: this }) - 1;
    const answer = RelaySocket.answer(n);
    setTimeout(() => {
      if (answer === "refused") { // a failed handshake: all a browser learns of a 404 or a network failure
        this.readyState = RelaySocket.CLOSED;
        this.onerror?.();
        this.onclose?.({ code: 1006 });
        return;
      }
      this.readyState = RelaySocket.OPEN;
      this.onopen?.();
      if (answer === "gone") setTimeout(() => this.drop(GONE), 0); // the relay's answer for a dead channel
    }, 0);
  }

  send(): void {
    this.sent++;
  }

  close(): void {
    this.readyState = RelaySocket.CLOSED;
  }

  /** The server side ends the connection (the kernel died: its socket closed under the relay). */
  drop(code: number): void {
    this.readyState = RelaySocket.CLOSED;
    this.onclose?.({ code });
  }
}

function model(token: string): AnyModel & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    get: (key: string) => (key === "channel_token" ? token : undefined),
    send: (content: Record<string, unknown>) => void sent.push(content),
  } as unknown as AnyModel & { sent: Record<string, unknown>[] };
}

function channel(token = "ab".repeat(16)): { channel: Channel; model: ReturnType<typeof model> } {
  const m = model(token);
  return { channel: new Channel(m, new Toasts(document.createElement("div")), () => {}), model: m };
}

/** Connect, letting the stand-in's answer (a timer, as the network's) arrive. */
async function connected(c: Channel): Promise<void> {
  const done = c.connect();
  await vi.advanceTimersByTimeAsync(10);
  await done;
}

beforeEach(() => {
  vi.useFakeTimers();
  RelaySocket.made = [];
  vi.stubGlobal("WebSocket", RelaySocket);
  const config = document.createElement("script");
  config.id = "jupyter-config-data";
  config.type = "application/json"; // as in JupyterLab's page
  config.textContent = JSON.stringify({ baseUrl: "/", token: "the-users-jupyter-token" });
  document.body.append(config);
});

afterEach(() => {
  document.getElementById("jupyter-config-data")?.remove();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("the fast channel after its kernel is gone", () => {
  it("tries once more, hears GONE and never tries again; the comm carries the edits", async () => {
    RelaySocket.answer = (n) => (n === 0 ? "open" : "gone");
    const { channel: c, model: m } = channel();
    await connected(c);
    expect(RelaySocket.made).toHaveLength(1);
    RelaySocket.made[0].socket.drop(1006); // the kernel ended: the relay's socket closed
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000); // an hour with the page open
    expect(RelaySocket.made).toHaveLength(2); // the one retry that learned the channel is gone
    await connected(c); // a re-render asks again: still nothing
    await vi.advanceTimersByTimeAsync(60 * 1000);
    expect(RelaySocket.made).toHaveLength(2);
    void c.intent("move", { positions: {} });
    expect(c.path).toBe("comm");
    expect(m.sent.at(-1)).toMatchObject({ kind: "intent", action: "move" });
    c.dispose();
  });

  it("says gone even when the relay's close comes before the open is seen", async () => {
    RelaySocket.answer = () => "open";
    const { channel: c } = channel();
    const connecting = c.connect();
    RelaySocket.made[0].socket.onclose?.({ code: GONE }); // closed during the handshake's answer
    await connecting;
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    expect(RelaySocket.made).toHaveLength(1);
    c.dispose();
  });

  it("retries a dropped connection that may come back (no GONE) 5 times, 1 s to 16 s apart, then stops", async () => {
    RelaySocket.answer = (n) => (n === 0 ? "open" : "refused");
    const { channel: c } = channel();
    await connected(c);
    const start = Date.now();
    RelaySocket.made[0].socket.drop(1006); // a restarted server, a network blip
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    const gaps = RelaySocket.made.slice(1).map((made) => Math.round((made.at - start) / 1000));
    expect(gaps).toEqual([1, 3, 7, 15, 31]);
    c.dispose();
  });
});

describe("a canvas whose comm is gone with its kernel", () => {
  it("says so once, refuses edits with the reason, and throws nothing into the page", async () => {
    RelaySocket.answer = () => "open";
    const toastsEl = document.createElement("div");
    const m = model("cd".repeat(16));
    const c = new Channel(m, new Toasts(toastsEl), () => {});
    await connected(c);
    (m as { send: unknown }).send = () => {
      throw new Error("Cannot send"); // what the comm says once its kernel connection is disposed
    };
    RelaySocket.made[0].socket.drop(1006); // the socket closes with the kernel: the channel says hello on the comm
    await vi.advanceTimersByTimeAsync(60 * 1000);
    expect(RelaySocket.made).toHaveLength(1); // nothing retried for a kernel that is gone
    const reply = await c.intent("move", { positions: {} });
    expect(reply.ok).toBe(false);
    expect(reply.error).toContain("kernel is gone");
    expect(toastsEl.textContent?.match(/kernel is gone/g)?.length).toBe(1);
    c.dispose();
  });
});

describe("overlay requests in the envelope", () => {
  it("settles a menu request with the kernel's reply, and fails one the kernel never answers", async () => {
    const m = model("ab".repeat(16));
    const root = document.createElement("div");
    const c = new Channel(m, new Toasts(root), () => {});
    const answered = c.overlayRequest({ overlay: "analysis", action: "add_breakpoint", id: "a" });
    const sent = m.sent.at(-1) as { request: number; view: string };
    expect(sent).toEqual({ kind: "overlay", overlay: "analysis", action: "add_breakpoint", id: "a", request: sent.request, view: c.view });
    c.reply({ kind: "reply", request: sent.request, ok: false, error: "Add Breakpoint: no analysis", data: null, view: c.view });
    expect(await answered).toMatchObject({ ok: false, error: "Add Breakpoint: no analysis" });

    const unanswered = c.overlayRequest({ overlay: "strip", action: "hide", name: "heat" });
    const late = (m.sent.at(-1) as { request: number }).request;
    await vi.advanceTimersByTimeAsync(REPLY_TIMEOUT_MS);
    expect(await unanswered).toMatchObject({ ok: false, error: noReplyError(REPLY_TIMEOUT_MS / 1000) });
    expect(root.querySelector(".dld-toast-error")?.textContent).toBe(`No answer from the kernel: ${noReplyError(REPLY_TIMEOUT_MS / 1000)}`);
    const before = c.replyCount;
    c.reply({ kind: "reply", request: late, ok: true, error: null, data: null, view: c.view }); // ignored: settles nothing
    expect(c.replyCount).toBe(before + 1);
    c.dispose();
  });
});
