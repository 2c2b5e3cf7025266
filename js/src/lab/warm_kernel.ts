/**
 * One warm spare kernel for the next designer tab (setting `warmKernel`, on by default).
 *
 * Why: a designer tab opened on a new kernel spent most of its seconds starting that kernel and importing
 * dld_jupyter and the designer (issue 42: ResNet-18 2.4 s from the double-click against Netron's 1.3 s; 0.8 s with
 * the tab's kernel already running). Once JupyterLab is restored and idle, this keeps one kernel started (the
 * server's default kernelspec, the one designer tabs start) in a session of its own at SPARE_PATH, with what a tab
 * needs imported silently (dld_jupyter/lab/spare_kernel.py). A designer tab that opens on a kernel of its own takes
 * it: the kernel's working directory moves to the tab's folder, and its session moves to the tab's path, so the tab's
 * console finds it there as JupyterLab finds a console's session after a reload. A new spare is warmed after the tab
 * has shown its model (never while it opens: both would share the CPU).
 *
 * One per open JupyterLab page, never more: the spare is shut down when its page goes away (a keepalive request that
 * outlives the page) and when the setting is turned off; a spare session no page is connected to (its page crashed)
 * is shut down by the next page before it warms its own. `document.body.dataset.dldSpareKernel` says where it
 * stands (off, warming, ready, failed; unset until the settings are read): tests and benchmarks/open_time_bench.py
 * wait on it.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { URLExt } from "@jupyterlab/coreutils";
import { Kernel, ServerConnection, Session, SessionAPI } from "@jupyterlab/services";

export const SPARE_PATH = ".dld-jupyter-spare-kernel";
const SPARE_TYPE = "dld-spare";
const SPARE_NAME = "DL Designer spare kernel";
const MODULE = "__import__('dld_jupyter.lab.spare_kernel').lab.spare_kernel";
const MAX_FAILURES = 2; // a kernel without dld_jupyter fails every time: stop trying
const ORPHAN_WAITS = 10; // half seconds given to a page that went to shut its spare down

type SpareState = "off" | "warming" | "ready" | "failed";

/** Run `code` silently; throws with the kernel's error when it fails. */
async function run(kernel: Kernel.IKernelConnection, code: string): Promise<void> {
  const reply = await kernel.requestExecute({ code, silent: true, store_history: false }).done;
  const content = reply.content as { status: string; ename?: string; evalue?: string };
  if (content.status !== "ok") throw new Error(`${content.ename ?? content.status}: ${content.evalue ?? ""}`);
}

export class SpareKernel {
  private on = false;
  private spare: Session.ISessionConnection | null = null; // ours and not taken (warm once `ready`)
  private ready = false;
  private warming: Promise<void> | null = null;
  private scheduled = false;
  private failures = 0;
  private unloading = false;

  constructor(private readonly app: JupyterFrontEnd) {
    window.addEventListener("pagehide", this.onPageHide);
  }

  /** The `warmKernel` setting: on warms a spare when JupyterLab is idle, off shuts the spare down. */
  set enabled(on: boolean) {
    const first = document.body.dataset.dldSpareKernel === undefined; // the settings are applied: say so
    if (on === this.on && !first) return;
    this.on = on;
    if (on) {
      this.failures = 0;
      this.schedule();
    } else {
      this.setState("off");
      void this.shutdown();
    }
  }

  get enabled(): boolean {
    return this.on;
  }

  /** Warm a spare once JupyterLab is restored and idle, unless one is warm or warming. */
  schedule(): void {
    if (!this.on || this.spare || this.warming || this.scheduled || this.unloading || this.failures >= MAX_FAILURES) return;
    this.scheduled = true;
    void this.app.restored.then(() =>
      whenIdle(() => {
        this.scheduled = false;
        if (!this.on || this.spare || this.warming || this.unloading) return;
        this.warming = this.warm().finally(() => (this.warming = null));
      }),
    );
  }

  /**
   * The warm spare becomes the kernel of a tab whose session path is `path` (named `name`), in `folder` (the
   * kernel's working directory, relative to the server's root): its working directory and session move there. False
   * when there is none to take (off, failed, taken by another tab): the tab starts a kernel of its own.
   */
  async take(path: string, name: string, folder: string): Promise<boolean> {
    if (!this.on) return false;
    // a spare whose kernel is starting: sooner than starting another (not one still waiting for a gone page's spare)
    if (!this.ready && this.warming && this.spare) await this.warming;
    const session = this.spare;
    if (!session || !this.ready || session.isDisposed || !session.kernel || session.kernel.status === "dead") return false;
    this.spare = null;
    this.ready = false;
    this.setState(this.on ? "warming" : "off"); // until the next one is warm (schedule, after the tab is shown)
    try {
      // the working directory and the session move together (one request each, in parallel: the tab waits on both)
      await Promise.all([
        run(session.kernel, `${MODULE}.adopt(${JSON.stringify(folder)})`),
        SessionAPI.updateSession({ id: session.id, path, name, type: "console" }, this.app.serviceManager.serverSettings),
      ]);
      return true;
    } catch (reason) {
      console.warn("DL Designer: the spare kernel could not be used; the tab starts its own", reason);
      await session.shutdown().catch(() => undefined);
      return false;
    } finally {
      // The tab connects to the kernel on a connection of its own: JupyterLab lets one connection per kernel
      // handle comms, and the widgets' comms must be the tab's.
      session.dispose();
    }
  }

  private async warm(): Promise<void> {
    this.setState("warming");
    const services = this.app.serviceManager;
    let session: Session.ISessionConnection | null = null;
    try {
      await services.sessions.ready;
      await this.clearOrphans();
      await services.kernelspecs.ready;
      const kernelName = services.kernelspecs.specs?.default;
      if (!kernelName) throw new Error("the server has no default kernel");
      session = await services.sessions.startNew({ path: SPARE_PATH, type: SPARE_TYPE, name: SPARE_NAME, kernel: { name: kernelName } });
      this.spare = session;
      session.disposed.connect(this.onGone, this);
      if (!session.kernel) throw new Error("the spare's session has no kernel");
      await run(session.kernel, `${MODULE}.warm()`);
      if (!this.on || this.unloading) {
        await this.shutdown();
        return;
      }
      if (this.spare !== session) return; // gone while it warmed (shut down from the running panel)
      session.kernel?.statusChanged.connect(this.onStatus, this);
      this.ready = true;
      this.failures = 0;
      this.setState("ready");
    } catch (reason) {
      this.failures += 1;
      console.warn("DL Designer: no spare kernel (designer tabs start their own)", reason);
      if (session && this.spare === session) await this.shutdown();
      this.setState(this.on ? "failed" : "off");
    }
  }

  /** Spare sessions no page is connected to: a page that went is shutting its spare down (wait until it is gone);
   * one left by a page that could not (a crash) is shut down here. Another open page's spare stays its own. */
  private async clearOrphans(): Promise<void> {
    const sessions = this.app.serviceManager.sessions;
    for (let attempt = 0; ; attempt++) {
      await sessions.refreshRunning();
      const orphans = [...sessions.running()].filter((model) => model.path === SPARE_PATH && !model.kernel?.connections);
      if (!orphans.length) return;
      if (attempt === ORPHAN_WAITS) {
        for (const model of orphans) await sessions.shutdown(model.id).catch(() => undefined);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** The spare's session went away under us (shut down from the running panel or by another page): warm another. */
  private onGone(session: Session.ISessionConnection): void {
    if (this.spare !== session) return;
    this.spare = null;
    this.ready = false;
    this.setState(this.on ? "warming" : "off");
    this.schedule();
  }

  private onStatus(kernel: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (status !== "dead" || !this.spare || this.spare.kernel !== kernel) return;
    const session = this.spare;
    void session.shutdown().catch(() => undefined).finally(() => session.dispose()); // onGone warms another
  }

  private async shutdown(): Promise<void> {
    const session = this.spare;
    this.spare = null;
    this.ready = false;
    if (!session) return;
    try {
      await session.shutdown();
    } catch (reason) {
      console.warn("DL Designer: the spare kernel could not be shut down", reason);
    }
    session.dispose();
  }

  /** The page goes away: shut the spare down with a request that outlives the page. */
  private readonly onPageHide = (): void => {
    this.unloading = true;
    const session = this.spare;
    if (!session) return;
    const settings = this.app.serviceManager.serverSettings;
    const url = URLExt.join(settings.baseUrl, "api", "sessions", encodeURIComponent(session.id));
    void ServerConnection.makeRequest(url, { method: "DELETE", keepalive: true }, settings).catch(() => undefined);
  };

  private setState(state: SpareState): void {
    document.body.dataset.dldSpareKernel = state;
  }
}

/** Call `then` when the browser is idle (JupyterLab restored and drawn), within two seconds at the latest. */
function whenIdle(then: () => void): void {
  if ("requestIdleCallback" in window) window.requestIdleCallback(() => then(), { timeout: 2000 });
  else setTimeout(then, 500);
}
