/** What every part of the viewer shares: the widget model, the listener registry and the kernel channel. */
import { Reply } from "../../common/envelope";
import type { AnyModel } from "@anywidget/types";
import { Listeners } from "../../common/listeners";

export interface ViewContext {
  model: AnyModel;
  listeners: Listeners;
  send(message: Record<string, unknown>): void;
  /** A request of the shared envelope (common/envelope.ts) the kernel answers with a reply, e.g. the magnifier
   * menu's producers/consumers. */
  request<D>(action: string, args: Record<string, unknown>): Promise<Reply<D>>;
  notice(text: string, level?: "info" | "warning" | "error"): void;
  /** The floating layer for menus and tooltips (inside the widget, so cleanup removes them). */
  overlay: HTMLElement;
}
