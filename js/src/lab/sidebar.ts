/**
 * The DL Designer left-sidebar panel: operator palette and layer explorer of the active designer, whose state
 * lives in the kernel (see connection.ts), and the Runs section (runs.ts: the kernel's live and past runs). With no
 * designer active the Palette and Layers tabs say so and how to open one; Runs still lists the kernel's runs.
 */
import { Clipboard } from "@jupyterlab/apputils";
import { PageConfig } from "@jupyterlab/coreutils";
import { Widget } from "@lumino/widgets";

import { PendingRequests, REPLY_TIMEOUT_LONG_MS } from "../common/envelope";
import { DesignerConnection, PanelLike } from "./connection";
import { LayerExplorer } from "./explorer";
import { showExplorerMenu } from "./explorer_menu";
import { dldIcon } from "./icons";
import { FromKernel, SIDEBAR_ID, SidebarCommand, ToKernel } from "./messages";
import { OperatorPalette } from "./palette";
import { RunsList } from "./runs";
import { confirmDraft } from "./save_draft";

type Tab = "palette" | "layers" | "runs";
/** Where a run's artifact opens: beside the panel `ref`, on `kernel` (whose working folder is `kernelDir`). */
export interface OpenPlace {
  kernel: string | null;
  kernelDir: string;
  ref: string | null;
}
/** Opens a run's artifact (report, layer_info, model, folder) by its path relative to the server's root. */
export type ArtifactOpener = (artifact: string, file: string, place: OpenPlace) => Promise<unknown>;

export { SIDEBAR_ID };
const NO_RUNS = "Runs of this tab's kernel show here once it has imported dld_jupyter.";
const NO_DESIGNER =
  "No designer is active. Open an .onnx file with “Open With → DL Designer”, or run " +
  '`import dld_jupyter as dld; dld.open("model.onnx")` in a notebook.';

export class DesignerSidebar extends Widget {
  readonly connection: DesignerConnection;
  readonly palette: OperatorPalette;
  readonly explorer: LayerExplorer;
  readonly runs: RunsList;
  /** Set by the plugin (index.ts): JupyterLab's commands open what the Runs section's buttons ask for. */
  opener: ArtifactOpener | null = null;
  private tab: Tab = "layers";
  private readonly title_: HTMLDivElement;
  private readonly status: HTMLDivElement;
  private readonly error: HTMLDivElement;
  private readonly pending = new PendingRequests();
  private readonly body: HTMLDivElement;
  private readonly tabs: HTMLDivElement;
  private boundModel: string | null = null;
  private settings: ToKernel | null = null;
  /** What a hidden sidebar has not drawn yet, latest per part: drawn when it is shown (a designer's state of a
   * 5,000-layer model took ~67 ms of one frame to draw, in the middle of the user's first pan of the canvas). */
  private readonly undrawn = new Map<"palette" | "layers", () => void>();

  constructor() {
    super();
    this.id = SIDEBAR_ID;
    this.addClass("dld-Sidebar");
    this.title.icon = dldIcon;
    this.title.caption = "DL Designer: operator palette, layer explorer and runs";

    const header = div("dld-Sidebar-header", "DL Designer");
    this.title_ = div("dld-Sidebar-model");
    this.status = div("dld-Sidebar-status");
    this.error = div("dld-Sidebar-error");
    this.error.hidden = true;
    this.error.onclick = () => (this.error.hidden = true);
    this.palette = new OperatorPalette({
      add: (entry) => this.connection.send({ kind: "add_node", op: entry.name, domain: entry.domain }),
    });
    this.explorer = new LayerExplorer({
      select: (ids) => this.connection.send({ kind: "select", ids }),
      focus: (id) => this.connection.send({ kind: "focus", id }),
      contextMenu: (ids, event) => showExplorerMenu(ids, event, (name, args) => this.command(name, args)),
      attributeFilter: async (expression) => {
        const [request, reply] = this.pending.open();
        this.connection.send({ kind: "attr_filter", request, expression });
        const answer = await reply;
        if (!answer.ok) throw new Error(answer.error ?? "the attribute filter failed");
        return ((answer.data as { ids?: string[] } | null)?.ids ?? []) as string[];
      },
    });
    this.runs = new RunsList({
      cancel: (id) => this.connection.send({ kind: "run_cancel", id }),
      open: (id, name, point) => this.connection.send({ kind: "run_open", id, name, point }),
      copy: (text) => Clipboard.copyToSystem(text),
    });
    this.runs.setUnavailable(NO_RUNS);
    this.tabs = div("dld-Sidebar-tabs");
    this.tabs.append(
      tabButton("Palette", () => this.showTab("palette")),
      tabButton("Layers", () => this.showTab("layers")),
      tabButton("Runs", () => this.showTab("runs")),
    );
    this.body = div("dld-Sidebar-body");
    this.body.append(this.palette.node, this.explorer.node, this.runs.node);
    this.node.append(header, this.title_, this.error, this.tabs, this.status, this.body);

    this.connection = new DesignerConnection({
      message: (message) => this.onMessage(message),
      status: (text) => this.showUnbound(text),
      phase: (text) => (this.node.dataset.connection = text), // for a failing test's message (sidebar_driver.py)
      connected: (open) => {
        if (open) this.connection.send({ kind: "runs_watch", root: PageConfig.getOption("serverRoot") });
        else this.runs.setUnavailable(NO_RUNS);
      },
    });
    this.showUnbound(null);
  }

  follow(panel: PanelLike | null): void {
    // which tab the sidebar follows, for a test's failure message (the status text says only that none is bound)
    this.node.dataset.follows = panel?.id ?? "";
    this.connection.setPanel(panel);
  }

  /** Shown again (its tab clicked): look at the followed tab once more, in case a designer appeared meanwhile
   * without an event the connection heard. */
  protected onAfterShow(): void {
    if (!this.boundModel) this.connection.refresh();
    const work = [...this.undrawn.values()];
    this.undrawn.clear();
    work.forEach((draw) => draw());
  }

  /** `draw` now if the panel is on screen, else `onShow` when it is shown (the data itself is kept current). */
  private drawWhenShown(part: "palette" | "layers", draw: () => void, onShow = draw): void {
    if (this.isVisible) draw();
    else this.undrawn.set(part, onShow);
  }

  /** Resolves to whether the kernel did it (its error is shown in the sidebar otherwise). */
  command(name: SidebarCommand, args?: Record<string, unknown>): Promise<boolean> {
    const [request, reply] = this.pending.open(REPLY_TIMEOUT_LONG_MS); // Save, Export, a tool: long on a big model
    this.connection.send({ kind: "command", request, action: name, args: args ?? {} });
    return reply.then(async (answer) => {
      const invalid = (answer.data as { invalid?: string[] } | null)?.invalid;
      if (!answer.ok && invalid && !args?.draft) {
        // Save As of an invalid model (a notebook's designer): what is invalid, then a draft only if asked for
        if (await confirmDraft(invalid)) return this.command(name, { ...args, draft: true });
      } else if (!answer.ok) this.showError(answer.error ?? `DL Designer sidebar: ${name} failed`);
      return answer.ok;
    });
  }

  /** Settings from the JupyterLab settings editor, sent to the kernel on every bind. */
  applySettings(settings: Record<string, unknown>): void {
    this.settings = {
      kind: "settings",
      color_scheme: String(settings.colorScheme ?? "default"),
      hide_constants: settings.hideConstants !== false,
      auto_check_threshold: Number(settings.autoCheckThreshold ?? 5000),
    };
    if (this.boundModel) this.connection.send(this.settings);
  }

  get isBound(): boolean {
    return this.boundModel !== null;
  }

  dispose(): void {
    this.connection.dispose();
    super.dispose();
  }

  private onMessage(message: FromKernel): void {
    switch (message.kind) {
      case "designers":
        this.connection.chooseDesigner(message.items);
        break;
      case "state":
        if (this.settings && this.boundModel !== message.model_id) this.connection.send(this.settings);
        this.boundModel = message.model_id;
        this.title_.textContent = message.path || message.title;
        this.title_.title = message.path;
        this.showTab(this.tab);
        this.drawWhenShown("palette", () => this.palette.setEntries(message.palette));
        this.explorer.store.load(message.layers);
        this.explorer.setSelection(message.selection);
        this.explorer.setBreakpoints(message.breakpoints ?? []);
        this.drawWhenShown("layers", () => this.explorer.refresh());
        break;
      case "loading":
        this.showUnbound(`Loading ${message.path || message.title}…`);
        break;
      case "layers_patch":
        this.explorer.store.patch(message.removed, message.upsert);
        this.drawWhenShown("layers", () => this.explorer.refreshSoon(), () => this.explorer.refresh());
        break;
      case "selection":
        this.explorer.setSelection(message.ids);
        break;
      case "breakpoints":
        this.explorer.setBreakpoints(message.ids);
        break;
      case "reply":
        this.pending.settle(message);
        break;
      case "error":
        this.showError(message.message);
        break;
      case "runs":
        this.runs.setRows(message.rows);
        break;
      case "open_file":
        if (this.opener) {
          const place = { ...this.connection.where, kernelDir: message.kernel_dir };
          void this.opener(message.artifact, message.file, place).catch((e) => this.showError(String(e)));
        }
        break;
    }
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = false;
  }

  private showUnbound(text: string | null): void {
    this.boundModel = null;
    this.title_.textContent = "";
    this.status.textContent = text ?? NO_DESIGNER;
    this.showTab(this.tab);
  }

  /** Show one tab; Palette and Layers show the "no designer" status instead while none is bound. */
  private showTab(which: Tab): void {
    this.tab = which;
    const bound = this.boundModel !== null;
    this.palette.node.hidden = which !== "palette" || !bound;
    this.explorer.node.hidden = which !== "layers" || !bound;
    this.runs.node.hidden = which !== "runs";
    this.status.hidden = bound || which === "runs";
    const order: Tab[] = ["palette", "layers", "runs"];
    [...this.tabs.children].forEach((tab, i) => tab.classList.toggle("dld-mod-active", order[i] === which));
  }
}

function div(className: string, text?: string): HTMLDivElement {
  const node = document.createElement("div");
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function tabButton(label: string, onClick: () => void): HTMLButtonElement {
  const node = document.createElement("button");
  node.className = "dld-Sidebar-tab";
  node.textContent = label;
  node.onclick = onClick;
  return node;
}
