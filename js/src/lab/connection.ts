/**
 * Binds the sidebar to the designer the user works in: the current notebook or DL Designer document's kernel,
 * reached over one comm (no extra server or port). Finds designers among the panel's widget outputs, prefers the
 * one last clicked, registers the kernel-side comm target with a silent import (only in kernels that already
 * imported dld_jupyter), and starts over after a kernel restart or a page reload.
 *
 * The comm's first message waits until the kernel has handled its open: JupyterLab sends a comm's messages to a
 * subshell of the kernel (one per comm target) as soon as it has one, while the open went to the main shell before
 * that, so `hello` could overtake the open, and the kernel drops a message for a comm it does not know without a
 * word (loaded CI machines: the sidebar never bound a loaded designer). Any question still unanswered (a `hello`
 * without `designers`, a `bind` without `state` or `loading`) is asked again, later and later (bind_watch.ts).
 */
import { ISessionContext } from "@jupyterlab/apputils";
import { Kernel, KernelMessage } from "@jupyterlab/services";
import { Widget } from "@lumino/widgets";

import { BindWatch, RetryVerdict } from "./bind_watch";
import { DesignerItem, FromKernel, SIDEBAR_TARGET, ToKernel } from "./messages";
import { executionKey, widgetOutputs } from "./panel_outputs";
import { STALE_EVENT } from "./stale_tab";

const REGISTER_CODE = [
  "import sys as _dld_sys",
  "if 'dld_jupyter' in _dld_sys.modules:",
  "    import dld_jupyter.lab.kernel_sidebar as _dld_sidebar",
  "    _dld_sidebar.register()",
].join("\n");
/** How long the silent registration, then the comm's open, may take: behind a cell that imports dld_jupyter on a busy
 * machine, seconds. */
const REGISTER_WAIT_MS = 60_000;
const REGISTERED_EXPR = "'dld_jupyter.lab.kernel_sidebar' in __import__('sys').modules";

export interface PanelLike extends Widget {
  sessionContext: ISessionContext;
}

export interface ConnectionCallbacks {
  message(message: FromKernel): void;
  status(text: string | null): void; // no designer is bound: show `text`, or the default hint when null
  connected(open: boolean): void; // the comm to the panel's kernel opened (true) or is gone (false)
  phase(text: string): void; // where the binding stands, in words: a failed test says which side it waits for
}

export class DesignerConnection {
  private panel: PanelLike | null = null;
  private kernel: Kernel.IKernelConnection | null = null;
  private comm: Kernel.IComm | null = null;
  private bound: string | null = null;
  /** The designer the kernel last said it binds (its `state` or `loading`). */
  private acked: string | null = null;
  private readonly watch = new BindWatch(() => this.heal());
  private lastClicked: string | null = null;
  private rescanTimer = 0;
  /** The candidates last asked about: an idle kernel with the same widget outputs is not asked again (each
   * question makes the kernel busy, then idle, which would schedule the next rescan: a loop). */
  private lastScan: string | null = null;
  /** The kernel and execution key last probed for dld_jupyter in a panel without designers (the Runs section). */
  private lastProbe: string | null = null;
  private connecting: Promise<boolean> | null = null;
  /** The page's connection to a kernel that handles comms (JupyterLab lets one per kernel): a report tab sharing a
   * notebook's kernel has one that does not, and createComm on it throws. Set by the plugin (tab_manager.ts). */
  commsOf: (kernel: Kernel.IKernelConnection) => Kernel.IKernelConnection = (kernel) => kernel;
  private readonly onPointer = (event: Event) => this.noteClick(event);
  /** A designer tab's kernel stopped (document_tab.ts): its designer is gone, so the sidebar lets go of it. */
  private readonly onStale = (event: Event) => {
    this.closeComm();
    const title = (event as CustomEvent<string>).detail;
    this.callbacks.status(`${title}: reopen the file from the tab's banner.`);
  };

  constructor(private readonly callbacks: ConnectionCallbacks) {}

  /** Follow a new current panel (or none). */
  setPanel(panel: PanelLike | null): void {
    if (panel === this.panel) return;
    this.detach();
    this.panel = panel;
    this.callbacks.phase(panel ? `follows ${panel.id}` : "follows no tab");
    if (!panel) {
      this.callbacks.status(null);
      return;
    }
    panel.node.addEventListener("pointerdown", this.onPointer, true);
    panel.node.addEventListener(STALE_EVENT, this.onStale);
    panel.sessionContext.statusChanged.connect(this.onKernelStatus, this);
    panel.sessionContext.kernelChanged.connect(this.onKernelChanged, this);
    // Unbound until this panel's designer is found: a command meanwhile never reaches the previous panel's designer.
    this.callbacks.status("Looking for a designer in this tab…");
    this.scheduleRescan(0);
  }

  /** Look for the followed panel's designer again (the sidebar was shown). */
  refresh(): void {
    if (this.panel) this.scheduleRescan(0, true);
  }

  /** The kernel the comm talks to and the panel it follows (a run's report opens beside it, on that kernel). */
  get where(): { kernel: string | null; ref: string | null } {
    return { kernel: this.comm ? this.kernel?.id ?? null : null, ref: this.panel?.id ?? null };
  }

  send(message: ToKernel): void {
    const comm = this.comm;
    if (!comm) return;
    try {
      if (comm.isDisposed) throw new Error("the comm is closed");
      comm.send(message as unknown as Record<string, never>);
    } catch {
      // The kernel connection went away under the comm (a kernel shut down or replaced between two events): look
      // for the designer again rather than throw "Cannot send" into the page.
      this.closeComm();
      this.scheduleRescan(300, true);
    }
  }

  dispose(): void {
    this.detach();
  }

  private detach(): void {
    if (this.panel) {
      this.panel.node.removeEventListener("pointerdown", this.onPointer, true);
      this.panel.node.removeEventListener(STALE_EVENT, this.onStale);
      this.panel.sessionContext.statusChanged.disconnect(this.onKernelStatus, this);
      this.panel.sessionContext.kernelChanged.disconnect(this.onKernelChanged, this);
    }
    this.closeComm();
    window.clearTimeout(this.rescanTimer);
    this.panel = null;
  }

  private closeComm(): void {
    if (this.comm) this.callbacks.connected(false);
    if (this.comm && !this.comm.isDisposed) {
      try {
        this.comm.close();
      } catch {
        // the kernel is gone already
      }
    }
    this.comm = null;
    this.kernel = null;
    this.bound = this.acked = null;
    this.lastScan = null;
    this.watch.stop();
  }

  private onKernelChanged(): void {
    this.closeComm();
    this.callbacks.status("The kernel changed: waiting for a designer.");
    this.scheduleRescan(500);
  }

  private onKernelStatus(_: ISessionContext, status: Kernel.Status): void {
    if (status === "restarting" || status === "autorestarting" || status === "dead") {
      this.closeComm();
      this.callbacks.status("The kernel restarted: run the cell that opens a designer again.");
    } else if (status === "idle") {
      this.scheduleRescan(300); // a cell may have displayed a designer
    }
  }

  private noteClick(event: Event): void {
    const target = event.target as Node;
    const output = this.panel ? widgetOutputs(this.panel).find((o) => o.node.contains(target)) : undefined;
    if (output && output.modelId !== this.lastClicked) {
      this.lastClicked = output.modelId;
      this.scheduleRescan(0, true);
    }
  }

  private scheduleRescan(delay: number, force = false): void {
    window.clearTimeout(this.rescanTimer);
    if (force) this.lastScan = null;
    this.rescanTimer = window.setTimeout(() => void this.rescan(), delay);
  }

  /** Find the designers of the current panel and bind the preferred one. */
  private async rescan(): Promise<void> {
    const panel = this.panel;
    const kernel = panel?.sessionContext.session?.kernel ?? null;
    if (!panel || !kernel || kernel.status === "dead") {
      this.callbacks.phase(`no kernel (${kernel?.status ?? "none"})`);
      this.callbacks.status(null);
      return;
    }
    if (panel.node.dataset.stale) {
      this.callbacks.phase("stale tab");
      this.callbacks.status("The kernel of this tab stopped: reopen the file from the tab's banner.");
      return;
    }
    const candidates = widgetOutputs(panel).map((o) => o.modelId);
    if (candidates.length === 0) {
      if (this.bound) this.send({ kind: "unbind" });
      this.bound = this.acked = null;
      this.watch.stop();
      this.callbacks.phase("no designer output in the tab");
      this.callbacks.status(null);
      // No designer, but the kernel may have runs (dld.profile in a cell): the Runs section needs the comm too.
      const probe = `${kernel.id}:${executionKey(panel)}`;
      if (probe !== this.lastProbe && !(this.comm && this.kernel === kernel && !this.comm.isDisposed)) {
        this.lastProbe = probe;
        await this.ensureComm(kernel);
      }
      return;
    }
    if (!(await this.ensureComm(kernel))) {
      this.callbacks.status(null);
      return;
    }
    const scan = candidates.join(",");
    if (scan === this.lastScan) return;
    this.lastScan = scan;
    this.send({ kind: "hello", candidates });
    this.callbacks.phase(`hello sent: ${scan}`);
    this.watch.expect("designers");
  }

  /** A question got no answer in time (bind_watch.ts): look again from the start and bind anew. */
  private heal(): RetryVerdict {
    const kernel = this.panel?.sessionContext.session?.kernel;
    if (!this.panel || !kernel || kernel.status === "dead" || widgetOutputs(this.panel).length === 0) return "stop";
    if (kernel.status === "busy") return "wait"; // a cell runs: its end makes the sidebar look again
    this.callbacks.phase(`no answer to ${this.watch.waiting}: asking again`);
    this.bound = null; // the bind, if it was lost, is sent again
    this.scheduleRescan(0, true);
    return "retry";
  }

  /** A message from the kernel: a `state` or `loading` answers the bind. */
  private received(message: FromKernel): void {
    if ((message.kind === "state" || message.kind === "loading") && message.model_id === this.bound) {
      this.acked = message.model_id;
      this.watch.answered();
      this.callbacks.phase(`${message.kind === "state" ? "bound" : "loading"} ${message.model_id}`);
    }
    this.callbacks.message(message);
  }

  /** Called with the kernel's answer to hello: bind the last clicked designer, else the last displayed. */
  chooseDesigner(items: DesignerItem[]): void {
    if (items.length === 0) {
      this.bound = this.acked = null;
      this.watch.answered();
      this.callbacks.phase("the kernel has none of the outputs as a designer");
      this.callbacks.status(null);
      return;
    }
    const preferred = items.find((item) => item.model_id === this.lastClicked) ?? items[items.length - 1];
    if (preferred.model_id !== this.bound) {
      this.bound = preferred.model_id;
      this.acked = null;
      this.send({ kind: "bind", model_id: preferred.model_id });
      this.callbacks.phase(`bind sent: ${preferred.model_id}`);
      this.watch.expect("state");
    } else if (this.acked === this.bound) {
      this.watch.answered();
    } else {
      this.watch.expect("state"); // the bind sent before is still unanswered
    }
  }

  /** The comm to `kernel`, opened if needed; one attempt at a time (a rescan during another's silent request waits
   * for it, so two comms are never opened side by side). */
  private async ensureComm(kernel: Kernel.IKernelConnection): Promise<boolean> {
    while (this.connecting) await this.connecting;
    if (this.comm && this.kernel === kernel && !this.comm.isDisposed) return true;
    this.closeComm();
    this.connecting = this.openComm(kernel);
    try {
      return await this.connecting;
    } finally {
      this.connecting = null;
    }
  }

  private async openComm(kernel: Kernel.IKernelConnection): Promise<boolean> {
    const comms = this.commsOf(kernel);
    let reply: KernelMessage.IExecuteReplyMsg | null;
    try {
      const future = comms.requestExecute({
        code: REGISTER_CODE,
        silent: true,
        store_history: false,
        user_expressions: { registered: REGISTERED_EXPR },
      });
      // Bounded: every later rescan waits for this one, so a reply that never comes must not leave the sidebar
      // unbound for good (it asks again at the kernel's next idle).
      reply = await Promise.race([future.done, nullAfter(REGISTER_WAIT_MS)]);
    } catch {
      this.callbacks.phase("the kernel went away during the registration");
      return false; // the kernel went away while asked (a restart, a closed tab)
    }
    if (!reply) {
      this.callbacks.phase(`no answer to the registration in ${REGISTER_WAIT_MS / 1000} s`);
      this.scheduleRescan(1000, true);
      return false;
    }
    const content = reply.content as KernelMessage.IExecuteReply;
    const expr = content.status === "ok" ? (content.user_expressions?.registered as { data?: Record<string, string> }) : undefined;
    if (expr?.data?.["text/plain"] !== "True") {
      this.callbacks.phase(content.status === "ok" ? "no dld_jupyter in the kernel" : "the registration failed");
      return false;
    }
    if (this.panel?.sessionContext.session?.kernel !== kernel) return false; // the sidebar follows another tab now
    let comm: Kernel.IComm;
    let opened: Promise<unknown>;
    try {
      comm = comms.createComm(SIDEBAR_TARGET);
      comm.onMsg = (msg) => this.received(msg.content.data as unknown as FromKernel);
      comm.onClose = () => {
        if (this.comm === comm) {
          this.comm = null;
          this.bound = this.acked = null;
          this.watch.stop();
          this.callbacks.connected(false);
        }
      };
      opened = comm.open({}).done; // settled once the kernel has handled the open (its idle for it)
    } catch {
      this.callbacks.phase("no connection of this page opens comms on the kernel");
      return false; // no connection of this page handles comms for the kernel
    }
    this.callbacks.phase("comm open sent");
    const took = await Promise.race([opened.then(() => true, () => false), nullAfter(REGISTER_WAIT_MS)]);
    if (!took || this.panel?.sessionContext.session?.kernel !== kernel) {
      try {
        if (!comm.isDisposed) comm.close();
      } catch {
        // the kernel is gone already
      }
      if (took === null && this.panel) {
        this.callbacks.phase(`no answer to the comm's open in ${REGISTER_WAIT_MS / 1000} s`);
        this.scheduleRescan(1000, true);
      }
      return false;
    }
    this.comm = comm;
    this.kernel = kernel;
    this.callbacks.connected(true);
    return true;
  }
}

function nullAfter(ms: number): Promise<null> {
  return new Promise((resolve) => window.setTimeout(() => resolve(null), ms));
}
