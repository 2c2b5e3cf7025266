/**
 * The request/reply envelope front doors share (Python twin: dld_jupyter/formats/envelope.py, same names).
 *
 * A view asks with a Request (a number it chose, an action, its arguments) and the kernel answers with a Reply
 * carrying the same number: ok with data, or not ok with an error text that says what, why and the fix. The
 * canvas's intent, overlay-request and reply messages are this envelope plus their own fields (common/protocol.ts).
 * PendingRequests keeps what waits for a reply (the canvas channel's, a designer tab's, the sidebar's, the report
 * viewer's and the editors'), each failed after a bounded time when no reply comes.
 */

export interface Request<A extends string = string> {
  request: number;
  action: A;
  args: Record<string, unknown>;
}

export interface Reply<D = Record<string, unknown>> {
  request: number;
  ok: boolean;
  error: string | null;
  data: D | null;
}

/** The reply's data when it is ok; throws its error text otherwise (what a caller awaiting a request wants). */
export function unwrap<D>(reply: Reply<D>): D | null {
  if (!reply.ok) throw new Error(reply.error ?? "the kernel refused the request without saying why");
  return reply.data;
}

/** How long a request waits for its reply before it fails: a kernel busy running a cell answers comm messages only
 * when the cell ends, so this is generous; a request that saves or runs a tool waits REPLY_TIMEOUT_LONG_MS. */
export const REPLY_TIMEOUT_MS = 120_000;
export const REPLY_TIMEOUT_LONG_MS = 600_000;

/** The error of a request that got no reply in time (what the user reads, then how to go on). */
export function noReplyError(seconds: number): string {
  return `the kernel did not answer within ${seconds} s: it is busy (a running cell, a long save) or has stopped; ` +
    "wait for it (the Kernel menu shows its state) and try again, or restart the kernel";
}

/** Hands out request numbers (1, 2, …) and settles each pending request with its reply, or as failed when no reply
 * comes within its timeout (a reply that comes later is ignored: `settle` answers false). */
export class PendingRequests<D = Record<string, unknown>> {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (reply: Reply<D>) => void; timer: ReturnType<typeof setTimeout> }>();

  /** `timeoutMs`: how long each request waits for its reply unless `open` says otherwise; `expired` hears of each
   * request that failed for want of a reply (the canvas shows it as a toast). */
  constructor(
    private readonly timeoutMs = REPLY_TIMEOUT_MS,
    private readonly expired?: (reply: Reply<D>) => void,
  ) {}

  /** A new request number and the promise of its reply (a failed reply after `timeoutMs` without one). */
  open(timeoutMs = this.timeoutMs): [number, Promise<Reply<D>>] {
    const request = this.next++;
    const promise = new Promise<Reply<D>>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(request);
        const reply: Reply<D> = { request, ok: false, error: noReplyError(Math.round(timeoutMs / 1000)), data: null };
        this.expired?.(reply);
        resolve(reply);
      }, timeoutMs);
      this.waiting.set(request, { resolve, timer });
    });
    return [request, promise];
  }

  /** Settles the request the reply answers; false when none waits for it (another view's, a stale or timed-out one). */
  settle(reply: Reply<D>): boolean {
    const waiting = this.waiting.get(reply.request);
    if (waiting === undefined) return false;
    this.waiting.delete(reply.request);
    clearTimeout(waiting.timer);
    waiting.resolve(reply);
    return true;
  }

  /** Settles every pending request as failed (the view is closing or the kernel went away). */
  failAll(error: string): void {
    const waiting = [...this.waiting.entries()];
    this.clear();
    for (const [request, { resolve }] of waiting) resolve({ request, ok: false, error, data: null });
  }

  /** Forgets every pending request without settling it (the view that waited is gone). */
  clear(): void {
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  get size(): number {
    return this.waiting.size;
  }
}
