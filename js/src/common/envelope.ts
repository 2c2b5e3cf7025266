/**
 * The request/reply envelope front doors share (Python twin: dld_jupyter/frontdoor/envelope.py, same names).
 *
 * A view asks with a Request (a number it chose, an action, its arguments) and the kernel answers with a Reply
 * carrying the same number: ok with data, or not ok with an error text that says what, why and the fix. The
 * canvas's intent and reply messages are this envelope plus their own fields (common/protocol.ts). Types and two
 * small pure helpers only: nothing is added to the canvas's edit round trip.
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

/** Hands out request numbers (1, 2, …) and settles each pending request with its reply. */
export class PendingRequests<D = Record<string, unknown>> {
  private next = 1;
  private readonly waiting = new Map<number, (reply: Reply<D>) => void>();

  /** A new request number and the promise of its reply. */
  open(): [number, Promise<Reply<D>>] {
    const request = this.next++;
    const promise = new Promise<Reply<D>>((resolve) => this.waiting.set(request, resolve));
    return [request, promise];
  }

  /** Settles the request the reply answers; false when none waits for it (another view's, or a stale one). */
  settle(reply: Reply<D>): boolean {
    const resolve = this.waiting.get(reply.request);
    if (resolve === undefined) return false;
    this.waiting.delete(reply.request);
    resolve(reply);
    return true;
  }

  /** Settles every pending request as failed (the view is closing or the kernel went away). */
  failAll(error: string): void {
    for (const [request, resolve] of [...this.waiting.entries()]) resolve({ request, ok: false, error, data: null });
    this.waiting.clear();
  }

  /** Forgets every pending request without settling it (the view that waited is gone). */
  clear(): void {
    this.waiting.clear();
  }

  get size(): number {
    return this.waiting.size;
  }
}
