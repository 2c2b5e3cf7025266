/**
 * The one way the extension builds its JupyterLab menus (Tools, tools_menu.ts; View → DL Designer Layouts,
 * layouts.ts): a menu from a list of entries (a command id, a separator, a submenu), read again each time it opens
 * when it lists something from the settings (`opening`), and a submenu of one command per listed thing (a user tool,
 * a layout) with a fallback command when the list is empty.
 */
import type { CommandRegistry } from "@lumino/commands";
import type { ReadonlyJSONObject } from "@lumino/coreutils";
import type { Message } from "@lumino/messaging";
import { Menu } from "@lumino/widgets";

/** A menu entry: a command id, "-" for a separator, or a submenu. */
export type MenuEntry = string | Menu;

export interface MenuSpec {
  id: string;
  label: string;
  entries?: MenuEntry[];
  /** Called each time the menu opens (a Lumino menu is attached when it opens): the settings are read again. */
  opening?: () => void;
}

/** A menu that calls `opening` each time it is shown. */
export class OpeningMenu extends Menu {
  constructor(
    options: Menu.IOptions,
    private readonly opening: () => void,
  ) {
    super(options);
  }

  protected onBeforeAttach(msg: Message): void {
    this.opening();
    super.onBeforeAttach(msg);
  }
}

export function buildMenu(commands: CommandRegistry, spec: MenuSpec): Menu {
  const menu = spec.opening ? new OpeningMenu({ commands }, spec.opening) : new Menu({ commands });
  menu.id = spec.id;
  menu.title.label = spec.label;
  for (const entry of spec.entries ?? []) {
    if (entry instanceof Menu) menu.addItem({ type: "submenu", submenu: entry });
    else if (entry === "-") menu.addItem({ type: "separator" });
    else menu.addItem({ command: entry });
  }
  return menu;
}

/** Fill a listing submenu: `command` once per `args` (a tool, a layout), or `empty` (what creates one) when none. */
export function fillListing(menu: Menu, command: string, args: ReadonlyJSONObject[], empty: string): void {
  menu.clearItems();
  for (const each of args) menu.addItem({ command, args: each });
  if (args.length === 0) menu.addItem({ command: empty });
}
