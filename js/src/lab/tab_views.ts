/**
 * What each kind of designer tab shows (TabRecord.kind: a model, a new model, a report, an engine, a comparison, a
 * sweep's results, a Start Activity tab): the kernel expression that builds its view, and its title. Pure functions
 * of the tab's record, so document_tab.ts holds the tab's life and this file the differences between its kinds.
 */
import { PathExt } from "@jupyterlab/coreutils";

import { TabRecord } from "./tab_messages";

/** A Python string literal for any text (JSON escapes are valid Python escapes). */
export function pyString(text: string): string {
  return JSON.stringify(text);
}

/** The Python expression that builds the tab's view. `kernelPath` turns a server path into the kernel's;
 * `kernelFile` is the file as the kernel reads it when it is not the record's own (a copy, transfer.ts). */
export function viewExpression(record: TabRecord, kernelPath: (serverPath: string) => string, kernelFile: string | null): string {
  const file = pyString(kernelFile ?? kernelPath(record.file));
  if (record.kind === "report") return `dld.report(${file})`;
  if (record.kind === "engine") return `dld.open_engine(${file})`;
  if (record.kind === "compare") return `dld.compare(${(record.files ?? []).map((f) => pyString(kernelPath(f))).join(", ")})`;
  if (record.kind === "results") {
    // the live view the kernel offered; after a kernel stop, a sweep's results again from its folder
    const rebuild = record.view === "sweep" && record.file ? `lambda: dld.sweep_results(${file})` : "None";
    return `_dld_tabs.results(${pyString(record.token ?? "")}, ${rebuild})`;
  }
  if (record.kind === "activity") {
    const model = record.file ? file : '""';
    return `dld.start_activity(${model}, activity=${pyString(record.activity ?? "profile")})`;
  }
  if (record.kind === "open" && record.file) return `dld.open(${file})`;
  return `dld.new(opset=${record.opset ?? 21}, contrib=${record.contrib ? "True" : "False"})`;
}

/** Whether the tab reads a file the kernel may need a copy of (a comparison reads its reports, results their token). */
export function readsFile(record: TabRecord): boolean {
  return !!record.file && record.kind !== "compare" && record.kind !== "results";
}

export interface TabTitle {
  label: string;
  caption: string;
}

/** The tab's title (also its console session's name) and tooltip. `key` is the tab's session path. */
export function tabTitle(record: TabRecord, key: string): TabTitle {
  if (record.kind === "results") {
    const label = record.title || PathExt.basename(record.file) || "Results";
    return { label, caption: `DL Designer: ${label}${record.file ? ` (${record.file})` : ""}` };
  }
  if (record.kind === "activity") {
    // "Start Activity", whichever model it runs
    return { label: PathExt.basename(key), caption: "DL Designer: Start Activity (profile, export or sweep a model file)" };
  }
  const files = record.kind === "compare" ? record.files ?? [] : [];
  const label = files.length
    ? PathExt.basename(key) // "compare a vs b", as the console names itself after its session path
    : record.file ? PathExt.basename(record.file) : PathExt.basename(key);
  const caption = files.length
    ? `DL Designer report comparison: ${files.join(", ")}`
    : record.file ? `DL Designer: ${record.file}` : "DL Designer: a new model";
  return { label, caption };
}
