/**
 * One DL Designer document tab: a kernel-backed console panel (prompt and code hidden) showing one designer or
 * report viewer that lives in the kernel, made to behave like a JupyterLab document.
 *
 * Why a console and not our own panel: widgets render in it through the console's own widget manager, exactly as
 * in a notebook, and the kernel reads the file (a 2 GB model is never downloaded into the browser). What the bare
 * console lacked is added here: the model's name as title, a dirty marker bound to the document's save point (the
 * kernel tells the tab over a comm, dld_jupyter/lab/document_tabs.py), Save / Save As through JupyterLab's file
 * dialog, Save / Discard / Cancel before an unsaved close, and the kernel shut down when the tab closes.
 *
 * When the kernel stops under the tab (shut down, killed, restarted), the designer that lived in it is gone: the tab
 * says so at once (stale_tab.ts: a banner over the greyed, inert view, the mark explained in the tooltip), Save
 * explains in a dialog why it cannot save, and Reopen opens the file again on a new kernel (kernel_watch.ts notices).
 *
 * This file holds the tab's life (show, close, stale); its parts live beside it: the comm and kernel watch
 * (tab_link.ts), Save and Save As (tab_save.ts), what each kind of tab shows and its title (tab_views.ts).
 */
import { Dialog, Notification, showDialog, showErrorMessage } from "@jupyterlab/apputils";
import { ConsolePanel } from "@jupyterlab/console";
import { PathExt } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { FileDialog } from "@jupyterlab/filebrowser";
import { Kernel } from "@jupyterlab/services";
import { Message, MessageLoop } from "@lumino/messaging";

import { REVEAL_EVENT } from "../common/protocol";
import { dldIcon } from "./icons";
import { STALE_EVENT, StaleCause, staleOverlay, StaleText, staleText } from "./stale_tab";
import { fitDesignerToTab } from "./tab_fit";
import { focusView } from "./tab_focus";
import { forgetView, holdsView, TabLink } from "./tab_link";
import { TabFromKernel, TabRecord } from "./tab_messages";
import { saveDocument } from "./tab_save";
import { pyString, readsFile, tabTitle, viewExpression } from "./tab_views";
import { pathForKernel } from "./transfer";

export const DESIGNER_DOCUMENT_CLASS = "dld-DesignerDocument";

/** What a tab needs from the tab manager. */
export interface TabHost {
  readonly docManager: IDocumentManager | null;
  keepKernelOnClose(): boolean;
  saveRecord(key: string, record: TabRecord): void;
  closed(key: string): void;
  /** Activate a tab (a report's name link focused its designer). */
  activate(tab: DesignerTab): void;
  /** Open a report (server path) split beside `tab`, on its kernel. */
  openReport(file: string, tab: DesignerTab): void;
  /** Open a wide result the kernel offered (a sweep's table and chart) split beside `tab`, on its kernel. */
  openResults(result: { token: string; view: string; title: string; file: string }, tab: DesignerTab): void;
  /** Close the report tabs that share `kernel` (their designer tab is closing and shuts it down). */
  closeSharing(kernel: string): void;
  /** Open `record` again in a new tab on a new kernel (a new model in `folder`): a stale tab's Reopen. */
  reopen(record: TabRecord, folder: string): Promise<void>;
  /** A connection to `kernel`'s kernel that may open comms (a report tab's own one may not). */
  commsConnection(kernel: Kernel.IKernelConnection): Kernel.IKernelConnection;
}

export class DesignerTab {
  private readonly link: TabLink;
  private dirty = false;
  private hasDocument = false;
  private closing = false;
  private stale: StaleCause | null = null;
  private veil: HTMLElement | null = null;

  constructor(
    readonly panel: ConsolePanel,
    readonly key: string, // the session path: the kernel's working directory is its folder
    public record: TabRecord,
    private readonly host: TabHost,
  ) {
    panel.addClass(DESIGNER_DOCUMENT_CLASS);
    panel.title.icon = dldIcon;
    panel.title.closable = true;
    this.link = new TabLink(key, (message) => this.onMessage(message));
    this.retitle();
    MessageLoop.installMessageHook(panel, (_handler, message: Message) => {
      // a stale tab's content is inert and cannot take the focus: its veil does (Ctrl+S there explains)
      if (message.type === "activate-request" && this.veil) requestAnimationFrame(() => this.veil?.focus());
      else if (message.type === "activate-request") requestAnimationFrame(() => focusView(panel));
      if (message.type !== "close-request" || this.closing) return true;
      void this.requestClose();
      return false; // closed by requestClose once the user has answered
    });
    // Ctrl+S / Ctrl+Shift+S anywhere in the tab, before the canvas takes Ctrl+S as its own (kernel-side) save
    // and before widget outputs suppress JupyterLab's shortcuts.
    panel.node.addEventListener("keydown", this.keydown, true);
    const unfit = fitDesignerToTab(panel.node); // the designer fills the tab; its dock scrolls, never the tab
    panel.node.addEventListener(REVEAL_EVENT, this.onReveal);
    panel.disposed.connect(() => {
      this.link.close();
      unfit();
      panel.node.removeEventListener(REVEAL_EVENT, this.onReveal);
      panel.node.removeEventListener("keydown", this.keydown, true);
      this.host.closed(this.key);
    });
  }

  /** Ctrl+S saves, Ctrl+Shift+S saves as (from the tab, or from the page body while this tab is current). */
  readonly keydown = (event: KeyboardEvent): void => {
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "s" || event.altKey) return;
    event.preventDefault();
    event.stopPropagation();
    void this.save(event.shiftKey);
  };

  /** Whether the kernel the tab's view lived in has stopped (the view is stale, see stale_tab.ts). */
  get isStale(): boolean {
    return this.stale !== null;
  }

  /** A report's name link focused this tab's canvas: the tab becomes the current one. The canvas takes the focus
   * (the console's own activation focuses its hidden prompt, which JupyterLab's focus tracking would not see). */
  private readonly onReveal = (event: Event): void => {
    this.host.activate(this);
    const target = event.target instanceof HTMLElement ? event.target : null;
    requestAnimationFrame(() => target?.focus({ preventScroll: true }));
  };

  /** The kernel's working directory as a server path (a shared kernel's is its designer tab's folder). */
  get kernelDir(): string {
    return this.record.kernelDir ?? PathExt.dirname(this.key);
  }

  /** Show the tab's view again, built anew (a report file written again by a new profile). */
  async reload(): Promise<void> {
    const kernel = this.panel.sessionContext.session?.kernel;
    if (!kernel) return;
    this.panel.console.clear();
    await forgetView(kernel, this.key);
    await this.show(false);
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  /** Show the tab's view: the live one the kernel still holds (a reload), or a new one from disk. */
  async show(reviving: boolean): Promise<void> {
    const context = this.panel.sessionContext;
    await context.ready;
    const kernel = context.session?.kernel;
    if (!kernel) throw new Error("DL Designer: the tab has no kernel (was it shut down?)");
    const live = reviving && (await holdsView(kernel, this.key));
    const lines = ["import dld_jupyter as dld", "from dld_jupyter.lab import document_tabs as _dld_tabs"];
    if (reviving && !live) {
      const what = this.record.file ? `reopened ${this.record.file} from disk` : "opened a new empty model";
      const text = `The kernel of this tab had stopped: ${what}; edits not saved before were lost.`;
      lines.push(`print(${pyString(text)})`);
      Notification.warning(`DL Designer: ${text}`, { autoClose: 8000 });
    }
    // a report on its designer's kernel leaves the designer tab's `_dld_view` alone
    const name = this.record.kernel ? "_dld_report_view" : "_dld_view";
    const { file } = this.record; // a kernel that cannot see the file gets a copy (transfer.ts)
    const comms = this.host.commsConnection(kernel);
    const copy = !live && readsFile(this.record) ? await pathForKernel(comms, file, this.kernelPath(file)) : null;
    const view = viewExpression(this.record, (path) => this.kernelPath(path), copy);
    lines.push(`${name} = _dld_tabs.show(${pyString(this.key)}, lambda: ${view})`, name);
    await this.panel.console.inject(lines.join("\n"));
    // The console scrolls to its end after running: a designer opens at its top (toolbar and canvas in view).
    this.panel.node.querySelector(".jp-CodeConsole-content")?.scrollTo(0, 0);
    this.link.open(comms, kernel, context, (cause) => this.markStale(cause));
  }

  /** Save to the document's file; Save As (JupyterLab's file dialog) when it has none or when `as` is set. */
  async save(as = false): Promise<boolean> {
    if (this.stale) return this.explainStale();
    if (!this.hasDocument) return false;
    const target = {
      docManager: this.host.docManager,
      key: this.key,
      file: this.record.file,
      kernelPath: (path: string) => this.kernelPath(path),
      request: this.link.save.bind(this.link),
    };
    const outcome = await saveDocument(target, as);
    if (outcome.kind === "cancelled") return false;
    if (outcome.kind === "failed") {
      if (this.stale) return this.explainStale(); // the kernel stopped while the tab waited for its answer
      await showErrorMessage("Save failed", outcome.error);
      return false;
    }
    if (outcome.path !== null) {
      this.record = { ...this.record, kind: "open", file: outcome.path };
      this.host.saveRecord(this.key, this.record);
      this.retitle();
    }
    return true;
  }

  /** A Start Activity tab's Browse…: JupyterLab's file dialog, .onnx files only; the choice goes to the kernel as a
   * path relative to its working directory, and becomes the model the tab reopens with after a reload. */
  private async pickModel(): Promise<void> {
    if (!this.host.docManager) return;
    const chosen = await FileDialog.getOpenFiles({
      manager: this.host.docManager,
      title: "Start Activity: choose the ONNX model",
      defaultPath: this.kernelDir,
      filter: (item) => (item.type === "directory" || item.name.toLowerCase().endsWith(".onnx") ? {} : null),
    });
    const file = chosen.button.accept ? chosen.value?.find((item) => item.type !== "directory") : undefined;
    if (!file || this.stale) return;
    this.link.send({ kind: "model_picked", path: this.kernelPath(file.path) });
    this.record = { ...this.record, file: file.path };
    this.host.saveRecord(this.key, this.record);
  }

  /** Ask Save / Discard / Cancel when dirty, then close the tab and shut its kernel down. A stale tab closes without
   * asking: its edits are lost already and nothing can be saved. */
  async requestClose(): Promise<void> {
    if (this.dirty && !this.stale) {
      const result = await showDialog({
        title: "Save changes?",
        body: `${this.panel.title.label} has unsaved changes. Save them before closing?`,
        buttons: [
          Dialog.cancelButton(),
          Dialog.warnButton({ label: "Discard" }),
          Dialog.okButton({ label: "Save" }),
        ],
        defaultButton: 2,
      });
      const discard = result.button.label === "Discard";
      if (!discard && !result.button.accept) return; // Cancel, Esc
      if (!discard && !(await this.save())) return;
    }
    this.closing = true;
    this.link.close();
    if (this.record.kernel || this.host.keepKernelOnClose()) {
      // the kernel stays (a report shares its designer's kernel, or the setting keeps it): drop this tab's view
      // there, so its designer releases its canvas, channel socket and check thread instead of living on unseen
      const kernel = this.panel.sessionContext.session?.kernel;
      if (!this.stale && kernel) void forgetView(kernel, this.key);
    } else {
      const kernel = this.panel.sessionContext.session?.kernel?.id;
      if (kernel) this.host.closeSharing(kernel); // its reports beside it would be left on a dead kernel
      try {
        await this.panel.sessionContext.shutdown(); // a stale tab's kernel may live on, restarted and empty
      } catch (reason) {
        if (!this.stale) console.error("DL Designer: the kernel could not be shut down", reason); // else: gone already
      }
    }
    this.panel.close();
  }

  /** A server path as the kernel sees it: relative to the tab's session folder, its working directory. */
  private kernelPath(serverPath: string): string {
    return PathExt.relative(this.kernelDir, serverPath) || PathExt.basename(serverPath);
  }

  /** The kernel stopped: the view is stale and its unsaved edits are gone. Say so over the view, make the view
   * inert (no gesture reaches the dead designer), explain the tab's mark, and fail what waited for the kernel. */
  private markStale(cause: StaleCause): void {
    if (this.closing || this.stale || this.panel.isDisposed) return;
    this.stale = cause;
    const text = this.staleText();
    this.link.fail(text.save);
    const panel = this.panel;
    const hadFocus = panel.node.contains(document.activeElement);
    panel.content.node.inert = true;
    panel.addClass("dld-mod-stale");
    panel.node.dataset.stale = cause;
    panel.title.className = this.dirty ? "jp-mod-dirty dld-mod-stale" : "dld-mod-stale"; // the dirty mark stays: lost
    panel.title.caption = text.caption;
    this.veil = staleOverlay(text, { reopen: () => void this.reopen(), close: () => void this.requestClose() });
    panel.node.append(this.veil);
    if (hadFocus) this.veil.focus({ preventScroll: true }); // Ctrl+S there still reaches the tab, which explains
    panel.node.dispatchEvent(new CustomEvent(STALE_EVENT, { detail: text.title }));
  }

  private staleText(): StaleText {
    const facts = { name: this.panel.title.label, file: this.record.file, dirty: this.dirty, document: this.hasDocument };
    return staleText(this.stale ?? "died", facts);
  }

  /** Save in a stale tab: say why it cannot save, and offer to reopen the file. */
  private async explainStale(): Promise<false> {
    const text = this.staleText();
    const result = await showDialog({
      title: `${this.panel.title.label} cannot be saved`,
      body: text.save,
      buttons: [Dialog.cancelButton({ label: "Dismiss" }), Dialog.okButton({ label: text.reopen })],
      defaultButton: 0,
    });
    if (result.button.accept && !this.panel.isDisposed) await this.reopen();
    return false;
  }

  /** A stale tab's Reopen: close it (nothing to save; its kernel shut down if it still runs) and open its file again,
   * from disk, in a new tab on a new kernel (a report that shared its designer's kernel gets one of its own). */
  private async reopen(): Promise<void> {
    const record: TabRecord = { ...this.record };
    delete record.kernel;
    delete record.kernelDir;
    await this.requestClose();
    try {
      await this.host.reopen(record, PathExt.dirname(this.key));
    } catch (reason) {
      await showErrorMessage("DL Designer: the file could not be reopened", String(reason));
    }
  }

  private onMessage(message: Exclude<TabFromKernel, { kind: "reply" }>): void {
    if (this.stale) return;
    if (message.kind === "open_report") {
      this.host.openReport(PathExt.join(this.kernelDir, message.file), this);
      return;
    }
    if (message.kind === "open_results") {
      const file = message.file ? PathExt.join(this.kernelDir, message.file) : "";
      this.host.openResults({ ...message, file }, this);
      return;
    }
    if (message.kind === "pick_model") {
      this.pickModel().catch((reason) => Notification.error(`DL Designer: the file dialog failed: ${reason}`));
      return;
    }
    this.hasDocument = message.document;
    this.dirty = message.dirty;
    this.panel.title.className = this.dirty ? "jp-mod-dirty" : "";
    this.panel.node.dataset.dirty = String(this.dirty);
  }

  private retitle(): void {
    const { label, caption } = tabTitle(this.record, this.key);
    this.panel.title.label = label;
    this.panel.title.caption = caption;
    void this.panel.sessionContext.session?.setName(label); // the console titles itself by its session's name
  }
}
