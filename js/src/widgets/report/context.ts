/** What every part of the viewer shares: the widget model, the listener registry and the kernel channel. */
import type { AnyModel } from "@anywidget/types";
import { Listeners } from "../../common/listeners";

export interface ViewContext {
  model: AnyModel;
  listeners: Listeners;
  send(message: Record<string, unknown>): void;
  /** A message the kernel answers (same `request` id), e.g. the magnifier menu's producers/consumers. */
  request<T>(message: Record<string, unknown>): Promise<T>;
  notice(text: string, level?: "info" | "warning" | "error"): void;
  /** The floating layer for menus and tooltips (inside the widget, so cleanup removes them). */
  overlay: HTMLElement;
}
