/**
 * What a designer tab shows once its kernel has stopped: the designer lived in that kernel, so the view left in the
 * tab is stale, and its unsaved edits are gone with it (issue 31, finding 6). Before, such a tab kept its dirty mark
 * and its edits for as long as one looked, Save failed without a dialog, and only a page reload told the truth.
 *
 * This module holds the words (why the view is stale, what was lost, what the file on disk still holds) and the
 * overlay that says them: a banner over the greyed view with Reopen and Close, and a veil that takes the pointer so
 * no gesture reaches the dead designer. Names and paths are set as text, never as HTML (a file name can be a
 * payload). The tab (document_tab.ts) decides when; kernel_watch.ts notices the kernel stopping.
 */

/** Why the view is stale: the kernel died, restarted (empty), was shut down, or the tab was given another one. */
export type StaleCause = "died" | "restarted" | "shut-down" | "replaced";

/** A kernel status that means the tab's designer is gone, or null (idle, busy, starting, unknown…). */
export function causeOfStatus(status: string): StaleCause | null {
  if (status === "dead") return "died";
  if (status === "restarting" || status === "autorestarting") return "restarted";
  return null;
}

/** What the tab showed when its kernel stopped. */
export interface StaleFacts {
  /** The tab's label (the model's file name). */
  name: string;
  /** The file it shows, relative to the server root; "" for a new model never saved. */
  file: string;
  /** Whether it had edits not saved to `file`. */
  dirty: boolean;
  /** Whether it showed a model (a designer), not a report or an engine graph. */
  document: boolean;
}

export interface StaleText {
  title: string;
  detail: string;
  /** The tab's tooltip. */
  caption: string;
  /** The label of the action that opens the file again on a new kernel. */
  reopen: string;
  /** Why Save cannot save (the body of the Save dialog, whose title says "<name> cannot be saved"). */
  save: string;
}

const WHAT_HAPPENED: Record<StaleCause, string> = {
  died: "stopped",
  restarted: "restarted (it starts empty)",
  "shut-down": "was shut down",
  replaced: "was replaced by another kernel",
};

export function staleText(cause: StaleCause, facts: StaleFacts): StaleText {
  const happened = WHAT_HAPPENED[cause];
  const title = `The kernel of this tab ${happened}`;
  const base = facts.file ? facts.file.split("/").pop() || facts.file : facts.name;
  const reopen = facts.file ? `Reopen ${base}` : "New Model";
  const onDisk = facts.file ? `${base} on disk is unchanged (as last saved): Reopen opens it on a new kernel.` : "";
  let lost: string;
  if (!facts.document) lost = "This view lived in that kernel and no longer responds.";
  else if (facts.dirty && facts.file) lost = "The model lived in that kernel: the edits made since the last save are lost.";
  else if (facts.dirty) lost = "The model lived in that kernel and was never saved: its edits are lost.";
  else lost = "Nothing was lost: the model had no unsaved edits.";
  const frozen = facts.document ? "This view can no longer be edited or saved." : "";
  const caption = [
    `${facts.name}: the kernel ${happened}.`,
    facts.dirty ? "The unsaved edits are lost." : "",
    facts.file ? "The file on disk is unchanged." : "",
    `${reopen} or close the tab.`,
  ];
  const save = [
    `The kernel of this tab ${happened}, and the model shown here lived in it${facts.dirty ? ": its unsaved edits are lost." : "."}`,
    onDisk,
  ];
  return {
    title,
    detail: [lost, frozen, onDisk].filter(Boolean).join(" "),
    caption: caption.filter(Boolean).join(" "),
    reopen,
    save: save.filter(Boolean).join(" "),
  };
}

export interface StaleActions {
  reopen(): void;
  close(): void;
}

export const STALE_BANNER_CLASS = "dld-StaleBanner";
/** Dispatched on a tab's node when its view went stale (detail: the banner's title); the sidebar lets go of it. */
export const STALE_EVENT = "dld-stale";

/**
 * The veil over a stale tab with its banner. The veil covers the whole tab and takes pointer events and the focus
 * (Ctrl+S pressed there reaches the tab, which explains why it cannot save); the content under it is made inert by
 * the caller. Returns the veil; `remove()` it to take it away.
 */
export function staleOverlay(text: StaleText, actions: StaleActions): HTMLElement {
  const veil = document.createElement("div");
  veil.className = "dld-StaleVeil";
  veil.tabIndex = -1;
  const banner = document.createElement("div");
  banner.className = STALE_BANNER_CLASS;
  banner.setAttribute("role", "alert");
  const title = document.createElement("div");
  title.className = "dld-StaleBanner-title";
  title.textContent = text.title;
  const detail = document.createElement("div");
  detail.className = "dld-StaleBanner-detail";
  detail.textContent = text.detail;
  const buttons = document.createElement("div");
  buttons.className = "dld-StaleBanner-actions";
  buttons.append(
    button(text.reopen, "jp-mod-accept", actions.reopen),
    button("Close", "jp-mod-reject", actions.close),
  );
  banner.append(title, detail, buttons);
  veil.append(banner);
  return veil;
}

function button(label: string, kind: string, action: () => void): HTMLButtonElement {
  const element = document.createElement("button");
  element.type = "button";
  element.className = `jp-Dialog-button jp-mod-styled ${kind}`;
  element.textContent = label;
  element.addEventListener("click", (event) => {
    event.stopPropagation();
    action();
  });
  return element;
}
