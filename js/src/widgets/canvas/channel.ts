/** Intents to the kernel and their replies; errors in a reply are shown in the widget, never swallowed. */
import type { AnyModel } from "@anywidget/types";
import type { IntentAction, KernelMessage } from "../../common/protocol";
import type { Toasts } from "./toasts";

type Reply = Extract<KernelMessage, { kind: "reply" }>;

export class Channel {
  private next = 1;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  /** Time from sending an intent to applying its patch, for the benchmark (last 200). */
  readonly roundTrips: number[] = [];
  private sentAt = new Map<number, number>();
  /** Replies received so far (tests wait on it). */
  replyCount = 0;

  constructor(private readonly model: AnyModel, private readonly toasts: Toasts) {}

  intent(action: IntentAction, args: Record<string, unknown> = {}, buffers: ArrayBuffer[] = []): Promise<Reply> {
    const request = this.next++;
    this.sentAt.set(request, performance.now());
    this.model.send({ kind: "intent", request, action, args }, undefined, buffers);
    return new Promise((resolve) => this.pending.set(request, resolve));
  }

  /** Called for every reply: shows an error, resolves the waiting promise. */
  reply(message: Reply): void {
    this.replyCount++;
    const started = this.sentAt.get(message.request);
    this.sentAt.delete(message.request);
    if (started !== undefined) {
      this.roundTrips.push(performance.now() - started);
      if (this.roundTrips.length > 200) this.roundTrips.shift();
    }
    if (!message.ok) this.toasts.show(message.error ?? "The kernel refused this edit.", "error");
    const resolve = this.pending.get(message.request);
    this.pending.delete(message.request);
    resolve?.(message);
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
}
