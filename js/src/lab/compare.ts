/**
 * Report comparison from JupyterLab (seed 001 "Compare Inference Reports"):
 * - "Compare Reports in DL Designer" on a multi-selection of reports in the file browser opens the comparison in
 *   a tab (the first in the file browser's order is the baseline; the viewer's selector changes it);
 * - the report viewer's "Compare with…" asks the page for files (event `dld-pick-reports`, widgets/report/
 *   compare_with.ts): answered here with JupyterLab's file dialog, paths made relative to the kernel's folder.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { PathExt } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { FileDialog } from "@jupyterlab/filebrowser";
import { Widget } from "@lumino/widgets";

import { CommandIds } from "./commands";
import { dldIcon } from "./icons";
import { DesignerTabs } from "./tab_manager";

const PICK_EVENT = "dld-pick-reports"; // widgets/report/compare_with.ts
const REPORT = /\.(dld-report\.json|json)$/i;

export function registerCompare(
  app: JupyterFrontEnd,
  tabs: DesignerTabs,
  docManager: IDocumentManager | null,
  selectedPaths: () => string[],
): void {
  const reports = () => selectedPaths().filter((p) => REPORT.test(p));
  app.commands.addCommand(CommandIds.compareReports, {
    label: "Compare Reports in DL Designer",
    caption: "Compare the selected profiling reports side by side (select two or more with Ctrl+click)",
    icon: dldIcon,
    isEnabled: () => reports().length >= 2,
    execute: async (args) => {
      const files = (args.paths as string[] | undefined) ?? reports();
      if (files.length < 2) return;
      return tabs.open({ kind: "compare", file: files[0], files });
    },
  });

  if (!docManager) return; // no file dialog: the viewer falls back to its path box
  document.body.addEventListener(PICK_EVENT, (event: Event) => {
    const detail = (event as CustomEvent<{ respond: (paths: string[] | null) => void }>).detail;
    if (!detail?.respond) return;
    event.preventDefault(); // "a picker answers"
    const folder = kernelFolder(app, event.target as HTMLElement);
    void FileDialog.getOpenFiles({
      manager: docManager,
      title: "Compare with… (choose one or more reports)",
      defaultPath: folder ?? "",
      filter: (model) => (model.type === "directory" || REPORT.test(model.name) ? {} : null),
    }).then(
      (result) => {
        const chosen = result.button.accept ? (result.value ?? []).filter((m) => m.type !== "directory") : [];
        // The kernel's working directory is its session's folder: paths relative to it.
        const paths = chosen.map((m) => (folder === null ? m.path : PathExt.relative(folder, m.path) || PathExt.basename(m.path)));
        detail.respond(paths.length ? paths : null);
      },
      () => detail.respond(null),
    );
  });
}

/** The folder of the session (notebook or designer tab) whose panel holds `element`; null when none does. */
function kernelFolder(app: JupyterFrontEnd, element: HTMLElement): string | null {
  for (const widget of app.shell.widgets("main")) {
    if (!widget.node.contains(element) || !("sessionContext" in widget)) continue;
    const path = (widget as Widget & { sessionContext: { path: string } }).sessionContext.path;
    return PathExt.dirname(path);
  }
  return null;
}
