/**
 * Named layouts of the designer's panels (seed 000: "the commands under the Window menu save, apply or reset
 * layouts"; issue 41), where a JupyterLab user looks: View → DL Designer Layouts (Save Layout…, Apply → <name>,
 * Reset Layout, Delete Layout → <name>, Dock Panels Beside / Below the Canvas) and the command palette
 * ("Apply Layout: <name>" per layout).
 *
 * A layout has two parts. The designer's dock (side, size, shown, editors' tab) is kernel-held: Save and Apply run
 * the `save_layout` / `apply_layout` operations on the current designer (dld_jupyter/widgets/designer/layouts.py),
 * and the kernel writes the `layouts` entry of this plugin's user settings (dld_jupyter/frontdoor/layout_store.py,
 * atomic). JupyterLab's side bars (folded, which panel shows, width) are the shell's (side_bars.ts): captured here
 * and sent along with Save, applied here from the settings on Apply. A running Lab does not watch the settings
 * file, so it is read again after a Save and whenever the submenu opens; the Apply submenu and the palette follow
 * the settings.
 */
import type { CommandRegistry } from "@lumino/commands";
import { Menu } from "@lumino/widgets";

import type { DesignerTarget } from "./current_designer";
import { applyShell, captureShell, DEFAULT_SHELL, sideBar } from "./side_bars";
import type { ShellLike, ShellState } from "./side_bars";
import { buildMenu, fillListing } from "./menu_builder";
import { PaletteEntries } from "./user_tool_palette";

export enum LayoutCommandIds {
  save = "dld:save-layout",
  apply = "dld:apply-layout",
  reset = "dld:reset-layout",
  delete = "dld:delete-layout",
  dockBeside = "dld:dock-beside",
  dockBelow = "dld:dock-below",
}

export interface LayoutSetting {
  name: string;
  shell: ShellState;
}

/** The layouts of the settings, keeping only well-formed names (Python refuses the others when they are applied). */
export function layoutsOf(composite: Record<string, unknown>): LayoutSetting[] {
  const layouts = composite["layouts"];
  if (!Array.isArray(layouts)) return [];
  const found: LayoutSetting[] = [];
  for (const entry of layouts) {
    if (typeof entry !== "object" || entry === null || typeof entry.name !== "string" || !entry.name) continue;
    const shell = (typeof entry.shell === "object" && entry.shell) || {};
    const left = sideBar(shell.left);
    const right = sideBar(shell.right);
    found.push({ name: entry.name, shell: { ...(left ? { left } : {}), ...(right ? { right } : {}) } });
  }
  return found;
}

/** Where the layouts are read: the settings' composite, and reading the settings file again; `askName` asks the
 * user for a new layout's name (a JupyterLab dialog; null when cancelled). */
export interface LayoutStore {
  layouts(): LayoutSetting[];
  reload(): Promise<void>;
  askName(): Promise<string | null>;
}

export function registerLayoutCommands(
  commands: CommandRegistry,
  designer: DesignerTarget,
  shell: ShellLike | null,
  store: LayoutStore,
): void {
  const bound = () => designer.isBound;
  commands.addCommand(LayoutCommandIds.save, {
    label: "Save Layout…",
    caption: "Keep the arrangement of the designer's panels and JupyterLab's side bars under a name",
    isEnabled: bound,
    execute: async () => {
      const name = (await store.askName())?.trim();
      if (!name) return;
      const saved = await designer.command("save_layout", { name, shell: shell ? captureShell(shell) : {} });
      if (saved) await store.reload(); // the Apply submenu and the palette list it
    },
  });
  commands.addCommand(LayoutCommandIds.apply, {
    label: (args) => (typeof args.name !== "string" ? "Apply Layout" : args.palette === true ? `Apply Layout: ${args.name}` : args.name),
    caption: "Arrange the designer's panels and JupyterLab's side bars as this saved layout",
    isEnabled: (args) => bound() && typeof args.name === "string",
    execute: async (args) => {
      const name = String(args.name);
      const layout = store.layouts().find((l) => l.name === name);
      if ((await designer.command("apply_layout", { name })) && shell && layout) await applyShell(shell, layout.shell);
    },
  });
  commands.addCommand(LayoutCommandIds.reset, {
    label: "Reset Layout",
    caption: "The default arrangement: the designer's panels beside the canvas, the DL Designer side bar open",
    isEnabled: bound,
    execute: async () => {
      if ((await designer.command("reset_layout")) && shell) await applyShell(shell, DEFAULT_SHELL);
    },
  });
  commands.addCommand(LayoutCommandIds.delete, {
    label: (args) => (typeof args.name === "string" ? args.name : "Delete Layout"),
    caption: "Forget this saved layout (the user settings' layouts entry)",
    isEnabled: (args) => bound() && typeof args.name === "string",
    execute: async (args) => {
      if (await designer.command("delete_layout", { name: String(args.name) })) await store.reload();
    },
  });
  for (const [id, side, label] of [
    [LayoutCommandIds.dockBeside, "right", "Dock Panels Beside the Canvas"],
    [LayoutCommandIds.dockBelow, "bottom", "Dock Panels Below the Canvas"],
  ] as const) {
    commands.addCommand(id, {
      label,
      caption: `Move the designer's editors, Profile and Tools panels ${side === "right" ? "beside" : "below"} its canvas`,
      isEnabled: bound,
      execute: () => designer.command("dock_side", { side }),
    });
  }
}

/** Fill the Apply (or Delete) submenu: one entry per layout, or Save Layout… when there is none. */
export function fillApplyMenu(menu: Menu, layouts: LayoutSetting[], command: string = LayoutCommandIds.apply): void {
  fillListing(menu, command, layouts.map((layout) => ({ name: layout.name })), LayoutCommandIds.save);
}

/** View → DL Designer Layouts; `fill` refreshes its Apply submenu from the store (index.ts: on each settings read). */
export function layoutsMenu(commands: CommandRegistry, store: LayoutStore): { menu: Menu; fill: () => void } {
  const apply = buildMenu(commands, { id: "dld-jupyter-apply-layout-menu", label: "Apply Layout" });
  const remove = buildMenu(commands, { id: "dld-jupyter-delete-layout-menu", label: "Delete Layout" });
  const menu = buildMenu(commands, {
    id: "dld-jupyter-layouts-menu",
    label: "DL Designer Layouts",
    entries: [
      LayoutCommandIds.save, apply, LayoutCommandIds.reset, remove, "-",
      LayoutCommandIds.dockBeside, LayoutCommandIds.dockBelow,
    ],
    opening: () => void store.reload().catch(console.error),
  });
  const fill = () => {
    fillApplyMenu(apply, store.layouts());
    fillApplyMenu(remove, store.layouts(), LayoutCommandIds.delete);
  };
  fill();
  return { menu, fill };
}

/** The palette's "Apply Layout: <name>" entries, replaced as a whole whenever the settings are read. */
export class LayoutPaletteItems extends PaletteEntries {
  update(layouts: LayoutSetting[]): void {
    this.replace(layouts.map((layout) => ({ command: LayoutCommandIds.apply, args: { name: layout.name, palette: true } })));
  }
}
