/**
 * Asks again, later and later, when the kernel did not answer the sidebar's binding (connection.ts): a `hello` that
 * got no `designers`, a `bind` that got neither `state` nor `loading`. A question can be lost on the way (a message
 * sent on a comm whose open the kernel has not handled yet is dropped without a word), and nothing else would ask
 * again: the sidebar stayed at "No designer is active" beside a loaded designer. One question in flight at a time,
 * 2 s after it went out, then 4, 8, 16 and every 30 s: never a loop that keeps a kernel busy.
 */

export const FIRST_RETRY_MS = 2_000;
export const MAX_RETRY_MS = 30_000;

/** What the owner says when a retry is due: asked again (`retry`), not now (`wait`: the kernel runs a cell, whose
 * end makes the owner look again anyway) or no longer needed (`stop`: no designer to bind). */
export type RetryVerdict = "retry" | "wait" | "stop";

export class BindWatch {
  private timer = 0;
  private attempts = 0;
  private awaited: string | null = null;

  /** `retry`: ask again (it calls expect once the question is out again). */
  constructor(private readonly retry: () => RetryVerdict) {}

  /** The answer awaited now (for a failure message), with how many times it was asked again. */
  get waiting(): string | null {
    return this.awaited === null ? null : this.attempts ? `${this.awaited} (asked again ${this.attempts}×)` : this.awaited;
  }

  /** A question went out: its answer, `what`, is awaited; ask again if it does not come. */
  expect(what: string): void {
    this.awaited = what;
    this.arm();
  }

  /** The awaited answer came: the next question starts again at the first delay. */
  answered(): void {
    this.stop();
  }

  stop(): void {
    window.clearTimeout(this.timer);
    this.awaited = null;
    this.attempts = 0;
  }

  private arm(): void {
    window.clearTimeout(this.timer);
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.attempts);
    this.timer = window.setTimeout(() => this.fire(), delay);
  }

  private fire(): void {
    this.attempts++;
    const verdict = this.retry();
    if (verdict === "stop") this.stop();
    else if (verdict === "wait") {
      this.attempts--;
      this.arm();
    } // on "retry", expect arms it again once the question is out, never the watch by itself
  }
}
