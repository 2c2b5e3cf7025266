/**
 * The kernel's messages to one view, applied in the order it sent them. They come over the comm and, once the view
 * has attached its fast channel, over that socket; the two paths have different speeds, and a message may come over
 * both (while another view of the widget still reads the comm). Each carries the kernel's sequence number: a
 * duplicate is dropped, an early one waits for those before it. A snapshot replaces everything before it. Should a
 * gap never fill (a socket died with messages in it), `onGap` asks the kernel for a fresh snapshot.
 */

export interface Sequenced {
  kind: string;
  seq?: number;
}

export class Inbox<M extends Sequenced, B> {
  private last: number | null = null;
  private readonly held = new Map<number, [M, B]>();
  private gapTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly deliver: (message: M, buffers: B) => void,
    private readonly onGap: () => void,
    private readonly gapMs = 10_000,
  ) {}

  receive(message: M, buffers: B): void {
    let seq = message.seq;
    if (seq === undefined) {
      this.deliver(message, buffers);
      return;
    }
    if (this.last === null && message.kind !== "snapshot") return; // nothing applies before the first snapshot
    if (this.last !== null && seq <= this.last) return; // already applied (it came the other way too)
    if (this.last !== null && seq > this.last + 1 && message.kind !== "snapshot") {
      this.held.set(seq, [message, buffers]);
      this.armGapTimer();
      return;
    }
    this.take(seq, message, buffers);
    for (const key of [...this.held.keys()]) if (key <= seq) this.held.delete(key);
    for (let next = this.held.get(seq + 1); next; next = this.held.get(seq + 1)) {
      seq += 1;
      this.held.delete(seq);
      this.take(seq, next[0], next[1]);
    }
    if (!this.held.size && this.gapTimer) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
  }

  get waiting(): number {
    return this.held.size;
  }

  dispose(): void {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.held.clear();
  }

  private take(seq: number, message: M, buffers: B): void {
    this.last = seq;
    this.deliver(message, buffers);
  }

  private armGapTimer(): void {
    if (this.gapTimer) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      if (this.held.size) this.onGap();
    }, this.gapMs);
  }
}
