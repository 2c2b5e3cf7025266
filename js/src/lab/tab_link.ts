/**
 * A designer tab's link to its kernel: the comm the kernel's dld_jupyter/lab/document_tabs.py talks on (the
 * document's dirty state, Save's replies, a report or results to open beside the tab), the Save requests waiting for
 * their reply, and the watch that notices the kernel stopping under the tab (kernel_watch.ts), which makes the tab
 * stale. Also the two questions the tab asks its kernel outside the comm: whether it still holds the tab's view,
 * and to forget it.
 */
import { ISessionContext } from "@jupyterlab/apputils";
import { Kernel } from "@jupyterlab/services";

import { PendingRequests, Reply, REPLY_TIMEOUT_LONG_MS } from "../common/envelope";
import { watchKernel } from "./kernel_watch";
import { StaleCause } from "./stale_tab";
import { TAB_TARGET, TabFromKernel, TabToKernel } from "./tab_messages";
import { pyString } from "./tab_views";

type SaveMessage = Omit<Extract<TabToKernel, { kind: "save" }>, "request">;

/** Whether `kernel` still holds the view of the tab `key` (a reload revives it; a restarted kernel has lost it). */
export async function holdsView(kernel: Kernel.IKernelConnection, key: string): Promise<boolean> {
  const probe = `__import__('dld_jupyter.lab.document_tabs').lab.document_tabs.is_live(${pyString(key)})`;
  const reply = await kernel.requestExecute({
    code: "",
    silent: true,
    store_history: false,
    user_expressions: { live: probe },
  }).done;
  const content = reply.content as { status: string; user_expressions?: Record<string, { data?: Record<string, string> }> };
  return content.status === "ok" && content.user_expressions?.live?.data?.["text/plain"] === "True";
}

/** Make `kernel` drop the view of the tab `key`, so its designer releases its canvas, channel socket and threads. */
export function forgetView(kernel: Kernel.IKernelConnection, key: string): Promise<unknown> {
  return kernel.requestExecute({
    code: `__import__('dld_jupyter.lab.document_tabs').lab.document_tabs.forget(${pyString(key)})`,
    silent: true,
    store_history: false,
  }).done;
}

export class TabLink {
  private comm: Kernel.IComm | null = null;
  /** Settled once the kernel has handled the comm's open: a message sent before could reach the kernel first, on a
   * subshell JupyterLab gives the comm meanwhile, and be dropped (connection.ts says how). */
  private opened: Promise<unknown> = Promise.resolve();
  private readonly pending = new PendingRequests();
  private unwatch: () => void = () => undefined;

  /** `key`: the tab's session path; `onMessage`: what the kernel tells the tab (replies are settled here). */
  constructor(
    private readonly key: string,
    private readonly onMessage: (message: Exclude<TabFromKernel, { kind: "reply" }>) => void,
  ) {}

  /** Open the comm on `comms` (a connection allowed to open comms) and watch `kernel`, the one the view lives in:
   * `stale` is called once, with its cause, when it stops serving the view. */
  open(comms: Kernel.IKernelConnection, kernel: Kernel.IKernelConnection, context: ISessionContext, stale: (cause: StaleCause) => void): void {
    this.disconnect();
    const comm = comms.createComm(TAB_TARGET);
    comm.onMsg = (msg) => {
      const message = msg.content.data as unknown as TabFromKernel;
      if (message.kind === "reply") this.pending.settle(message);
      else this.onMessage(message);
    };
    comm.onClose = () => {
      if (this.comm === comm) this.comm = null;
      this.pending.failAll("the kernel closed the tab's connection");
    };
    this.opened = comm.open({ key: this.key }).done.catch(() => undefined); // a kernel gone: send says so
    this.comm = comm;
    this.unwatch();
    this.unwatch = watchKernel(context, kernel, () => holdsView(kernel, this.key), stale);
  }

  /** Ask the kernel to save; the promise is its reply (failed when the link breaks first). */
  save(message: SaveMessage): Promise<Reply> {
    const [request, reply] = this.pending.open(REPLY_TIMEOUT_LONG_MS);
    this.send({ ...message, request });
    return reply;
  }

  send(message: TabToKernel): void {
    if (!this.comm) {
      this.pending.failAll("the tab is not connected to its kernel (was it restarted?)");
      return;
    }
    const comm = this.comm;
    void this.opened.then(() => {
      try {
        comm.send(message as unknown as Record<string, never>);
      } catch (reason) {
        this.pending.failAll(`the tab could not reach its kernel (${reason}): reopen the file`);
      }
    });
  }

  /** The kernel stopped: fail what waits for it with `reason` and close the comm (the watch has ended itself). */
  fail(reason: string): void {
    this.pending.failAll(reason);
    this.disconnect();
  }

  /** The tab closes: stop watching the kernel and close the comm. */
  close(): void {
    this.unwatch();
    this.disconnect();
  }

  private disconnect(): void {
    if (this.comm && !this.comm.isDisposed) {
      try {
        this.comm.close();
      } catch {
        // the kernel is gone already
      }
    }
    this.comm = null;
  }
}
