/** Messages of a designer tab's comm (kernel side: dld_jupyter/lab/document_tabs.py, same names). */

import { Reply } from "../common/envelope";

export const TAB_TARGET = "dld_jupyter.tab";

/** What a tab shows and how it comes back after a reload: kept in the workspace's state database. */
export interface TabRecord {
  kind: "open" | "report" | "engine" | "new" | "compare";
  /** The file shown, relative to the server root ("" for a new model never saved; the first of a comparison). */
  file: string;
  /** A comparison's reports (the first is the baseline when it opens), relative to the server root. */
  files?: string[];
  opset?: number;
  contrib?: boolean;
}

export type TabToKernel = { kind: "save"; request: number; path: string | null };

export type TabFromKernel =
  | { kind: "state"; name: string; path: string; dirty: boolean; document: boolean }
  | ({ kind: "reply" } & Reply);
