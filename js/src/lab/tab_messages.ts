/** Messages of a designer tab's comm (kernel side: dld_jupyter/lab/document_tabs.py, same names). */

import { Reply } from "../common/envelope";

export const TAB_TARGET = "dld_jupyter.tab";

/** What a tab shows and how it comes back after a reload: kept in the workspace's state database. */
export interface TabRecord {
  kind: "open" | "report" | "engine" | "new" | "compare" | "activity" | "results";
  /** The file shown, relative to the server root ("" for a new model never saved; the first of a comparison; the
   * model a Start Activity tab was opened on, "" for none). */
  file: string;
  /** A Start Activity tab's activity when it opened: "profile", "export" or "sweep" (widgets/runs/start_activity.py). */
  activity?: string;
  /** A comparison's reports (the first is the baseline when it opens), relative to the server root. */
  files?: string[];
  /** A results tab's (dld_jupyter/frontdoor/results_tab.py): what it shows ("sweep"), its label, and the token of
   * the live view its kernel offered (gone once taken: a later show builds it again from `file`). */
  view?: string;
  title?: string;
  token?: string;
  opset?: number;
  contrib?: boolean;
  /** A report opened from a designer tab's profile: the designer's kernel, shared (not shut down on close), and
   * that kernel's working directory (server path), which kernel paths are relative to. */
  kernel?: string;
  kernelDir?: string;
}

/** draft: save an invalid model anyway (Save As first answers `data.invalid`, the checker's errors). model_picked: the
 * model a Start Activity tab's Browse… chose in the file dialog, relative to the kernel's working directory. */
export type TabToKernel =
  | { kind: "save"; request: number; path: string | null; draft?: boolean }
  | { kind: "model_picked"; path: string };

export type TabFromKernel =
  | { kind: "state"; name: string; path: string; dirty: boolean; document: boolean }
  | { kind: "open_report"; file: string }
  | { kind: "pick_model" }
  | { kind: "open_results"; token: string; view: string; title: string; file: string }
  | ({ kind: "reply" } & Reply);
