/**
 * The designer the user works in, in one place (issue 26, item 1): the sidebar shows it, and the Tools menu, the
 * commands and the command palette act on it. It is the designer of the shell's current widget: a designer tab, or
 * in a notebook (or console) the designer last interacted with (connection.ts), else the last one shown.
 *
 * The shell's current widget is JupyterLab's focus tracker's: a tab becomes current when something in it takes the
 * focus. Clicking a designer tab's header activates it, and its console would focus its hidden prompt, which takes
 * no focus, so the tab never became current and the Tools acted on the designer shown before, possibly hidden;
 * tab_focus.ts gives the focus to the view instead. While the sidebar binds the new panel's designer (a round
 * trip to its kernel) no designer is current: a command then is refused, never sent to the previous one.
 */
import type { JupyterFrontEnd } from "@jupyterlab/application";
import type { Widget } from "@lumino/widgets";

import type { PanelLike } from "./connection";
import type { DesignerTab } from "./document_tab";
import type { SidebarCommand } from "./messages";
import type { DesignerSidebar } from "./sidebar";

/** What the commands need: whether a designer is current, the tab it lives in (if any), and a way to act on it. */
export interface DesignerTarget {
  readonly isBound: boolean;
  tab(): DesignerTab | null;
  command(name: SidebarCommand, args?: Record<string, unknown>): Promise<boolean>;
}

interface ShellLike {
  currentWidget: Widget | null;
  currentChanged?: { connect(fn: () => void): void };
}

function asPanel(widget: Widget | null): PanelLike | null {
  return widget && "sessionContext" in widget ? (widget as PanelLike) : null;
}

export class CurrentDesigner implements DesignerTarget {
  private readonly shell: ShellLike;

  /** `shell`: Lab's shell, or Notebook 7's (both signal currentChanged); `currentTab`: the designer tab in front. */
  constructor(
    app: JupyterFrontEnd,
    shell: unknown,
    private readonly sidebar: DesignerSidebar,
    private readonly currentTab: () => DesignerTab | null,
  ) {
    this.shell = (shell ?? app.shell) as ShellLike;
    const follow = () => this.sidebar.follow(asPanel(this.shell.currentWidget));
    this.shell.currentChanged?.connect(follow);
    app.restored.then(follow).catch(console.error);
  }

  /** Whether the sidebar is bound to the designer of the current widget. */
  get isBound(): boolean {
    return this.sidebar.isBound;
  }

  /** The designer tab in front, if the current widget is one (Save and Save As go through it). */
  tab(): DesignerTab | null {
    return this.currentTab();
  }

  /** Run the kernel operation `name` on the current designer (see commands.ts, tools_menu.ts). */
  command(name: SidebarCommand, args?: Record<string, unknown>): Promise<boolean> {
    return this.sidebar.command(name, args);
  }
}
