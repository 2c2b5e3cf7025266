/**
 * Save and Save As of a designer tab's document: the path (JupyterLab's file dialog, save_as_path.ts, when the
 * document has no file yet or the user asked for Save As), the kernel's save over the tab's comm, and a draft of an
 * invalid model only when the user says so (save_draft.ts). The tab (document_tab.ts) handles a stale kernel and
 * takes the new file as its own.
 */
import { IDocumentManager } from "@jupyterlab/docmanager";

import { Reply } from "../common/envelope";
import { confirmDraft } from "./save_draft";
import { askSavePath } from "./save_as_path";
import { TabToKernel } from "./tab_messages";

/** What a save needs from its tab. */
export interface SaveTarget {
  readonly docManager: IDocumentManager | null;
  /** The tab's session path and its document's file ("" for a model never saved). */
  readonly key: string;
  readonly file: string;
  kernelPath(serverPath: string): string;
  request(message: Omit<Extract<TabToKernel, { kind: "save" }>, "request">): Promise<Reply>;
}

/** How a save ended: cancelled by the user, refused by the kernel (its error), or saved (to `path` if new). */
export type SaveOutcome = { kind: "cancelled" } | { kind: "failed"; error: string } | { kind: "saved"; path: string | null };

/** Save to the document's file; Save As when it has none or when `as` is set. */
export async function saveDocument(target: SaveTarget, as: boolean): Promise<SaveOutcome> {
  let serverPath: string | null = null;
  if (as || !target.file) {
    serverPath = await askSavePath(target.docManager, target.key, target.file);
    if (!serverPath) return { kind: "cancelled" };
  }
  const kernelPath = serverPath === null ? null : target.kernelPath(serverPath);
  let answer = await target.request({ kind: "save", path: kernelPath });
  const invalid = (answer.data as { invalid?: string[] } | null)?.invalid;
  if (!answer.ok && invalid && kernelPath !== null) {
    // Save As of an invalid model says what is invalid; a draft is saved only when the user says so.
    if (!(await confirmDraft(invalid))) return { kind: "cancelled" };
    answer = await target.request({ kind: "save", path: kernelPath, draft: true });
  }
  if (!answer.ok) return { kind: "failed", error: answer.error ?? "the kernel gave no reason" };
  return { kind: "saved", path: serverPath };
}
