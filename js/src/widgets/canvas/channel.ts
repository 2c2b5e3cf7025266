/**
 * Intents to the kernel and their replies; errors in a reply are shown in the widget, never swallowed.
 * Intents go over the fast channel once it is attached (fast_channel.ts), else over the comm; every message from
 * the kernel passes the Inbox, which keeps the kernel's order across both paths.
 */
import type { AnyModel } from "@anywidget/types";
import { PendingRequests, type Reply as EnvelopeReply } from "../../common/envelope";
import type { IntentAction, KernelMessage, OverlayMessage } from "../../common/protocol";
import { FastChannel, GONE, relayUrl } from "./fast_channel";
import { Inbox } from "./inbox";
import type { Toasts } from "./toasts";

type Reply = Extract<KernelMessage, { kind: "reply" }>;

const NO_KERNEL = "This canvas's kernel is gone (shut down or restarted): run the cell again to edit the model.";
const LOST = "The connection to the kernel dropped before this edit was answered; the canvas was redrawn from the kernel.";

export class Channel {
  /** This view's id: the kernel routes the fast channel by it, and a reply names the view that asked. */
  readonly view = Math.random().toString(36).slice(2) + Date.now().toString(36);
  /** Intents and overlay requests waiting for their reply; one the kernel leaves unanswered fails after
   * REPLY_TIMEOUT_MS with a toast (a late reply still applies its patches, and settles nothing). */
  private readonly pending = new PendingRequests(undefined, (expired) => {
    this.forget(expired.request);
    if (!this.closed) this.toasts.show(`No answer from the kernel: ${expired.error}`, "error");
  });
  /** Time from sending an intent to applying its patch, for the benchmark (last 200). */
  readonly roundTrips: number[] = [];
  private sentAt = new Map<number, number>();
  /** Replies received so far (tests wait on it). */
  replyCount = 0;
  /** "fast" once the fast channel is attached, else "comm" (tests and the benchmark read it). */
  path: "comm" | "fast" = "comm";
  /** Intents sent over each path (the benchmark reports which one its edits took). */
  readonly sent = { comm: 0, fast: 0 };
  private fast: FastChannel | null = null;
  private connecting = false;
  private retries = 0; // reconnections tried since the fast channel was last attached
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** The channel token the relay said is gone (its kernel ended, the widget closed): never tried again. */
  private goneToken: string | null = null;
  private fastRequests = new Set<number>();
  readonly inbox: Inbox<KernelMessage, DataView[]>;
  private closed = false;
  private kernelGone = false; // a comm send failed: the kernel is gone; said once, nothing retried

  constructor(
    private readonly model: AnyModel,
    private readonly toasts: Toasts,
    deliver: (message: KernelMessage, buffers: DataView[]) => void,
  ) {
    this.inbox = new Inbox(deliver, () => this.hello());
  }

  /** Ask the kernel for a snapshot over the comm: on first render, to resync, or (lost) after the fast channel
   * dropped, when the kernel must stop counting on that socket even before it notices the drop itself. */
  hello(lost = false): void {
    this.toKernel(lost ? { kind: "hello", view: this.view, lost } : { kind: "hello", view: this.view });
  }

  /** Send over the comm; false when the kernel is gone (shut down, restarted), which is said once, never thrown:
   * a socket closing with its kernel used to throw "Cannot send" into the page from this very path. */
  private toKernel(message: Record<string, unknown>, buffers: ArrayBuffer[] = []): boolean {
    try {
      this.model.send(message, undefined, buffers);
      return true;
    } catch {
      if (!this.kernelGone) this.toasts.show(NO_KERNEL, "error");
      this.kernelGone = true;
      return false;
    }
  }

  /** Open the fast channel named by the model's channel_token; stays on the comm where that is not possible. */
  async connect(): Promise<void> {
    const token = String(this.model.get("channel_token") ?? "");
    const url = relayUrl(token);
    if (!url || this.fast || this.connecting || this.closed || token === this.goneToken) return;
    this.connecting = true;
    const fast = await FastChannel.open(
      url,
      (content, buffers) => this.fromFast(content, buffers),
      (code) => this.fastLost(code === GONE ? token : null),
    );
    this.connecting = false;
    if (fast === "gone") {
      this.goneToken = token; // the kernel closed this socket for good: the comm carries all, nothing is retried
      return;
    }
    if (!fast) {
      if (this.retries > 0) this.retry(); // still down: try again later
      return;
    }
    if (this.closed) {
      fast.close();
      return;
    }
    this.fast = fast;
    fast.send({ kind: "attach", view: this.view });
  }

  private fromFast(content: Record<string, unknown>, buffers: DataView[]): void {
    if (content.kind === "attached") {
      this.path = "fast"; // the kernel now sends this view everything after content.seq over the socket
      this.retries = 0;
      return;
    }
    this.inbox.receive(content as unknown as KernelMessage, buffers);
  }

  private fastLost(goneToken: string | null = null): void {
    this.fast = null;
    if (goneToken !== null) this.goneToken = goneToken;
    this.path = "comm";
    // Edits sent over the socket may be lost with it: settle them, and redraw from the kernel's truth.
    for (const request of this.fastRequests) {
      this.reply({ kind: "reply", request, ok: false, error: LOST, data: null, view: this.view });
    }
    this.fastRequests.clear();
    if (this.closed) return;
    this.hello(true);
    if (!this.kernelGone) this.retry();
  }

  /** A dropped fast channel (a network blip, a restarted server) is tried again 5 times, 1 s to 16 s apart; the
   * comm carries everything meanwhile, and for good once the relay says the socket is gone (GONE: the kernel ended
   * or closed the widget), which the first retry after a kernel's end learns. */
  private retry(): void {
    if (this.closed || this.retryTimer || this.retries >= 5 || this.goneToken !== null) return;
    const delay = 1000 * 2 ** this.retries++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
  }

  intent(action: IntentAction, args: Record<string, unknown> = {}, buffers: ArrayBuffer[] = []): Promise<EnvelopeReply> {
    const [request, promise] = this.pending.open();
    this.sentAt.set(request, performance.now());
    const message = { kind: "intent", request, action, args, view: this.view };
    if (this.fast && this.path === "fast" && this.fast.open) {
      this.fastRequests.add(request);
      this.fast.send(message, buffers);
      this.sent.fast++;
    } else if (this.toKernel(message, buffers)) {
      this.sent.comm++;
    } else {
      this.reply({ kind: "reply", request, ok: false, error: NO_KERNEL, data: null, view: this.view });
    }
    return promise;
  }

  /** What the user asked of an overlay (a context-menu item: Add Breakpoint, Inspect Channels…), in the envelope:
   * the kernel's overlay registry routes it by name and replies like an intent (its refusal shown as a toast). */
  overlayRequest(message: Omit<OverlayMessage, "kind">): Promise<EnvelopeReply> {
    const [request, promise] = this.pending.open();
    if (!this.toKernel({ ...message, kind: "overlay", request, view: this.view })) {
      this.reply({ kind: "reply", request, ok: false, error: NO_KERNEL, data: null, view: this.view });
    }
    return promise;
  }

  private forget(request: number): void {
    this.fastRequests.delete(request);
    this.sentAt.delete(request);
  }

  /** Called for every reply (patches applied): shows an error, settles the intent if this view sent it. */
  reply(message: Reply): void {
    if (message.view != null && message.view !== this.view) return; // another view's edit
    this.replyCount++;
    const started = this.sentAt.get(message.request);
    this.forget(message.request);
    if (started !== undefined) {
      this.roundTrips.push(performance.now() - started);
      if (this.roundTrips.length > 200) this.roundTrips.shift();
    }
    if (!message.ok) this.toasts.show(message.error ?? "The kernel refused this edit.", "error");
    this.pending.settle(message);
  }

  jsError(error: unknown, where: string): void {
    const text = error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error);
    try {
      this.model.send({ kind: "js_error", message: `${where}: ${text}` });
    } catch {
      // The comm is gone (widget closed): nothing left to tell.
    }
    this.toasts.show(`Internal error in ${where}: ${error instanceof Error ? error.message : String(error)}`, "error");
  }

  dispose(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.pending.clear(); // nothing waits for this view any more: no timer outlives it
    try {
      this.model.send({ kind: "bye", view: this.view }); // the kernel stops sending this view's copy over the comm
    } catch {
      // The comm is gone already.
    }
    this.fast?.close();
    this.fast = null;
    this.inbox.dispose();
  }
}
