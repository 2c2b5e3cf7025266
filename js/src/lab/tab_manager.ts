/**
 * The open DL Designer tabs: opens them (one tab per file: opening a file again shows its tab), records what each
 * shows in the workspace's state database, and revives them after a page reload.
 *
 * Why: JupyterLab's console restorer brings a designer tab back as a bare console on the same session (its kernel
 * still running, the designer alive inside it, but nothing displayed). The record tells which restored consoles
 * are designer tabs and what they show, so the tab asks its kernel for the live view (nothing lost, still dirty)
 * or, when the kernel had stopped, reopens the file from disk and says so.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { Notification } from "@jupyterlab/apputils";
import { ConsolePanel, IConsoleTracker } from "@jupyterlab/console";
import { PathExt } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { Kernel } from "@jupyterlab/services";
import { IStateDB } from "@jupyterlab/statedb";
import { ReadonlyPartialJSONObject } from "@lumino/coreutils";
import { Widget } from "@lumino/widgets";

import { DesignerTab, TabHost } from "./document_tab";
import { TabRecord } from "./tab_messages";
import { SpareKernel } from "./warm_kernel";

const RECORD_PREFIX = "dld-jupyter:tab:";
/** Performance marks of a tab's open (benchmarks/open_time_bench.py reads them): asked to open, the spare taken, its
 * kernel ready (connected and answering), its view shown (the kernel ran the cell that builds it). */
export const OPEN_MARKS = {
  start: "dld-open:start",
  spare: "dld-open:spare", // the warm spare taken (or none to take)
  kernelReady: "dld-open:kernel-ready",
  shown: "dld-open:shown",
};

export class DesignerTabs implements TabHost {
  private readonly tabs = new Map<string, DesignerTab>();
  private readonly creating = new Set<string>();
  keepKernel = false;
  readonly spare: SpareKernel;

  constructor(
    private readonly app: JupyterFrontEnd,
    private readonly state: IStateDB | null,
    readonly docManager: IDocumentManager | null,
    consoles: IConsoleTracker | null,
  ) {
    consoles?.widgetAdded.connect((_, panel) => void this.adopt(panel));
    consoles?.forEach((panel) => void this.adopt(panel));
    document.addEventListener("keydown", this.onBodyKeydown, true);
    this.spare = new SpareKernel(app);
  }

  /** Ctrl+S with the focus on the page body saves the current designer tab: a click in its canvas leaves the focus
   * there for a tick (the console's mousedown takes it, the canvas takes it back after), and a key pressed at once
   * reached neither the tab nor JupyterLab's own save, which does not know our tabs. */
  private readonly onBodyKeydown = (event: KeyboardEvent): void => {
    if (event.target === document.body) this.current()?.keydown(event);
  };

  /** The designer tab the user works in, if the current main-area widget is one. */
  current(): DesignerTab | null {
    const widget: Widget | null = this.app.shell.currentWidget;
    for (const tab of this.tabs.values()) if (tab.panel === widget) return tab;
    return null;
  }

  /** `kernel` when it handles comms, else the page's connection to the same kernel that does: JupyterLab lets one
   * connection per kernel handle them, so a report tab joining its designer's kernel got one whose createComm threw
   * "Comms are disabled on this kernel connection" (a false "report could not be opened" after every profile). */
  commsConnection(kernel: Kernel.IKernelConnection): Kernel.IKernelConnection {
    if (kernel.handleComms) return kernel;
    for (const widget of this.app.shell.widgets("main")) {
      const other = (widget as Widget & { sessionContext?: ConsolePanel["sessionContext"] }).sessionContext?.session?.kernel;
      if (other && other.id === kernel.id && other.handleComms && !other.isDisposed) return other;
    }
    return kernel;
  }

  closeSharing(kernel: string): void {
    for (const tab of [...this.tabs.values()]) if (tab.record.kernel === kernel) void tab.requestClose();
  }

  activate(tab: DesignerTab): void {
    this.app.shell.activateById(tab.panel.id);
  }

  async reopen(record: TabRecord, folder: string): Promise<void> {
    await this.open(record, folder);
  }

  /** A finished profile's report: a tab split right of its designer tab (later ones beside it), on the designer's
   * kernel (its name links find the live designer in-process). A tab already showing the file shows it anew (a new profile wrote it). */
  openReport(file: string, designer: DesignerTab): void {
    for (const tab of this.tabs.values()) {
      if (tab.record.kind === "report" && tab.record.file === file && tab.record.kernel && tab.isStale) {
        void tab.requestClose().then(() => this.openReport(file, designer)); // its kernel stopped: a new tab
        return;
      }
      if (tab.record.kind === "report" && tab.record.file === file && tab.record.kernel) {
        this.app.shell.activateById(tab.panel.id);
        tab.reload().catch((reason) => Notification.error(`DL Designer: the report ${file} could not be shown: ${reason}`));
        return;
      }
    }
    const kernel = designer.panel.sessionContext.session?.kernel?.id;
    if (!kernel) {
      Notification.error(`DL Designer: the report ${file} was written, but its designer has no kernel to show it`);
      return;
    }
    const record: TabRecord = { kind: "report", file, kernel, kernelDir: designer.kernelDir };
    const place = this.besideOf(designer, kernel);
    void this.open(record, "", place.ref, place.mode).catch((reason) =>
      Notification.error(`DL Designer: the report ${file} could not be opened: ${reason}`),
    );
  }

  /** Where a report or a result opens: the report area is reused, so a later one opens as a tab beside the previous
   * report or result, not as one more split column (each squeezed the designer, ~270 px wide after a few profiles);
   * the first splits right of its designer. */
  private besideOf(designer: DesignerTab, kernel: string): { ref: string; mode: "split-right" | "tab-after" } {
    const area = [...this.tabs.values()].find(
      (tab) => (tab.record.kind === "report" || tab.record.kind === "results") && tab.record.kernel === kernel &&
        tab.panel.isAttached && !tab.isStale,
    );
    return area ? { ref: area.panel.id, mode: "tab-after" } : { ref: designer.panel.id, mode: "split-right" };
  }

  /** A wide result its designer's (or Start Activity's) kernel offered (dld_jupyter/frontdoor/results_tab.py): a tab
   * in the report area on that kernel. A tab already showing the same result (a sweep run again into its folder, a
   * divergence checked again) shows the new one. */
  openResults(result: { token: string; view: string; title: string; file: string }, designer: DesignerTab): void {
    const kernel = designer.panel.sessionContext.session?.kernel?.id;
    if (!kernel) {
      Notification.error(`DL Designer: ${result.title} could not be shown: its designer has no kernel`);
      return;
    }
    const record: TabRecord = {
      kind: "results", file: result.file, view: result.view, title: result.title, token: result.token, kernel,
      kernelDir: designer.kernelDir,
    };
    const failed = (reason: unknown) => Notification.error(`DL Designer: ${result.title} could not be shown: ${reason}`);
    for (const tab of this.tabs.values()) {
      const same = tab.record.kind === "results" && tab.record.view === result.view && tab.record.kernel === kernel;
      // the same sweep folder, or (a result with no file: a divergence) the same title
      const again = result.file ? tab.record.file === result.file : !tab.record.file && tab.record.title === result.title;
      if (same && again && !tab.isStale) {
        tab.record = record;
        this.saveRecord(tab.key, record);
        this.app.shell.activateById(tab.panel.id); // in front of its area, the designer current again
        this.app.shell.activateById(designer.panel.id);
        tab.reload().catch(failed);
        return;
      }
    }
    const place = this.besideOf(designer, kernel);
    // Shown in front of its area, while the designer stays the current tab: the commands (Check Against Original,
    // Compare Model With…, Save) and the sidebar keep acting on the model the user works on.
    this.open(record, "", place.ref, place.mode)
      .then((panel) => {
        this.app.shell.activateById(panel.id); // in front of its area…
        this.app.shell.activateById(designer.panel.id); // …and the designer current again, in the same task
      })
      .catch(failed);
  }

  /** Open a tab for `record` (a new model or Start Activity in `folder`); a file already open shows its tab, not a
   * second one.
   * `ref`: the panel it opens beside, `mode`: split beside it (a first report beside its designer) or a tab after
   * it (a later report beside the previous one). */
  async open(record: TabRecord, folder = "", ref?: string, mode: "split-right" | "tab-after" = "split-right"): Promise<ConsolePanel> {
    const same = (a: TabRecord) =>
      a.kind === record.kind && a.file === record.file && !a.kernel === !record.kernel && (a.files ?? []).join("\n") === (record.files ?? []).join("\n");
    // A Start Activity tab is never reused: its model may have changed since it opened; each opens on its file.
    if (record.file && record.kind !== "activity" && record.kind !== "results") {
      for (const tab of this.tabs.values()) {
        if (same(tab.record)) {
          this.app.shell.activateById(tab.panel.id);
          return tab.panel;
        }
      }
    }
    let key =
      record.kind === "results"
        ? this.free(record.kernelDir ?? folder, (i) => `${record.title || "Results"}${i === 0 ? "" : ` (${i + 1})`}`)
        : record.kind === "compare"
        ? this.comparisonKey(record.files ?? [])
        : record.kind === "activity"
          ? this.free(folder, (i) => `Start Activity${i === 0 ? "" : ` (${i + 1})`}`) // never the model's own path
          : record.file || this.untitled(folder);
    // A report on its designer's kernel never shares a session path with a tab of the file on its own kernel (either
    // may open first): the same path would attach the second tab to the first one's kernel, and closing it would
    // shut that kernel down, designer and unsaved edits with it.
    if (record.kernel && record.kind !== "results") key = `${key} (profile)`; // a result's key is free already
    const quiet = record.kind === "results" && !!record.kernel; // beside its designer: openResults activates it
    this.creating.add(key);
    performance.mark(OPEN_MARKS.start);
    // a report beside its designer: the file's name; a result: its title
    const name = record.kind === "results" ? record.title || PathExt.basename(key) : PathExt.basename(record.kernel && record.file ? record.file : key);
    try {
      // A tab on a kernel of its own takes the warm spare (warm_kernel.ts): its console finds the spare's session at
      // its path. Not where a session is there already (the console joins that one).
      if (!record.kernel && !(await this.hasSession(key))) await this.spare.take(key, name, record.kernelDir ?? PathExt.dirname(key));
      performance.mark(OPEN_MARKS.spare);
      const panel = (await this.app.commands.execute("console:create", {
        path: key,
        name,
        activate: !quiet, // a result never takes the focus from its designer (openResults)
        // A file opens as a tab of its own, as JupyterLab's documents do (split-right made every open a narrower
        // column); a report from a designer's profile splits beside that designer.
        insertMode: ref ? mode : "tab-after",
        ...(ref ? { ref } : {}),
        // The default kernel of the server, started without asking (the kernel must have dld_jupyter installed);
        // a report from a designer's profile joins the designer's kernel.
        kernelPreference: record.kernel
          ? { id: record.kernel, shouldStart: true, canStart: true }
          : { shouldStart: true, canStart: true, autoStartDefault: true },
      })) as ConsolePanel;
      const tab = new DesignerTab(panel, key, record, this);
      this.tabs.set(key, tab);
      this.saveRecord(key, record);
      await panel.sessionContext.ready;
      await panel.sessionContext.session?.kernel?.info; // the kernel answers (its process up and connected)
      performance.mark(OPEN_MARKS.kernelReady);
      await tab.show(false);
      performance.mark(OPEN_MARKS.shown);
      this.spare.schedule(); // the next tab's spare, now that this one has shown its model
      if (!quiet) this.app.shell.activateById(panel.id); // the sidebar follows the current panel
      return panel;
    } finally {
      this.creating.delete(key);
    }
  }

  /** Whether a session runs at `path` (asking the server when the list known here says so: a stale tab's session is
   * gone with its kernel, and its Reopen takes the spare). */
  private async hasSession(path: string): Promise<boolean> {
    const sessions = this.app.serviceManager.sessions;
    const at = () => [...sessions.running()].some((session) => session.path === path);
    if (!at()) return false;
    await sessions.refreshRunning();
    return at();
  }

  keepKernelOnClose(): boolean {
    return this.keepKernel;
  }

  saveRecord(key: string, record: TabRecord): void {
    void this.state?.save(RECORD_PREFIX + key, record as unknown as ReadonlyPartialJSONObject);
  }

  closed(key: string): void {
    this.tabs.delete(key);
    void this.state?.remove(RECORD_PREFIX + key);
  }

  /** A console restored by JupyterLab after a reload: a designer tab when the workspace has its record. */
  private async adopt(panel: ConsolePanel): Promise<void> {
    const key = panel.sessionContext.path;
    if (!this.state || this.creating.has(key) || this.tabs.has(key)) return;
    const record = (await this.state.fetch(RECORD_PREFIX + key)) as unknown as TabRecord | undefined;
    if (!record || !record.kind || this.tabs.has(key)) return;
    const tab = new DesignerTab(panel, key, record, this);
    this.tabs.set(key, tab);
    try {
      await tab.show(true);
    } catch (reason) {
      Notification.error(`DL Designer: ${key} could not be restored: ${reason}`);
    }
  }

  /** A comparison's session path, in its first report's folder (the kernel's working directory). */
  private comparisonKey(files: string[]): string {
    const stem = (f: string) => PathExt.basename(f).replace(/\.dld-report\.json$|\.json$/, "");
    const base = PathExt.join(PathExt.dirname(files[0] ?? ""), `compare ${files.map(stem).join(" vs ")}`);
    const taken = new Set([...this.tabs.keys()]);
    for (let i = 0; ; i++) {
      const key = i === 0 ? base : `${base} (${i + 1})`;
      if (!taken.has(key)) return key;
    }
  }

  /** A new model's session path: untitled.onnx, untitled1.onnx… in `folder`, used by no tab or session. */
  private untitled(folder: string): string {
    return this.free(folder, (i) => `untitled${i === 0 ? "" : i}.onnx`);
  }

  /** The first session path `folder/name(i)` (i = 0, 1…) that no tab or session uses. */
  private free(folder: string, name: (i: number) => string): string {
    const taken = new Set([...this.tabs.keys()]);
    for (const session of this.app.serviceManager.sessions.running()) taken.add(session.path);
    for (let i = 0; ; i++) {
      const path = PathExt.join(folder, name(i));
      if (!taken.has(path)) return path;
    }
  }
}

