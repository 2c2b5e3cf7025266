/**
 * Double-click (or Enter, or File Browser → Open) on a model, a report or an engine's layer information opens it
 * in the DL Designer, as "Open With DL Designer" does.
 *
 * Why: JupyterLab opens a file with its file type's default widget factory. An .onnx had none, so a double-click
 * fell back to the text editor, which downloaded the whole model into the browser and then failed ("File Load
 * Error … is not UTF-8 encoded"); a report or a .trt.json opened as raw JSON. These factories are the defaults for
 * our file types. Their model reads no content (`fileFormat: null`: only the file's metadata is fetched, a 2 GB
 * model stays on the server), and the widget they make hands the path to the designer tabs (where the kernel reads
 * the file) and closes at once. JupyterLab's own "Open With" still offers the editor and the JSON viewer.
 */
import { JupyterFrontEnd } from "@jupyterlab/application";
import { ABCWidgetFactory, DocumentModel, DocumentRegistry, DocumentWidget } from "@jupyterlab/docregistry";
import { Notification } from "@jupyterlab/apputils";
import { Toolbar } from "@jupyterlab/ui-components";
import { Widget } from "@lumino/widgets";

import { ENGINE_FILE_TYPE, ONNX_FILE_TYPE, REPORT_FILE_TYPE } from "./opener";
import { DesignerTabs } from "./tab_manager";

export const PATH_ONLY_MODEL = "dld-path-only";

/** A document model that never holds the file's bytes: the kernel reads the file, not the browser. */
class PathOnlyModelFactory implements DocumentRegistry.IModelFactory<DocumentRegistry.IModel> {
  readonly name = PATH_ONLY_MODEL;
  readonly contentType = "file" as const;
  readonly fileFormat = null;
  readonly collaborative = false;
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    this.disposed = true;
  }

  preferredLanguage(): string {
    return "";
  }

  createNew(): DocumentRegistry.IModel {
    return new DocumentModel();
  }
}

type Kind = "open" | "report" | "engine";

/** Makes a short-lived document widget that opens its file in a designer tab, then closes. */
class HandOffFactory extends ABCWidgetFactory<DocumentWidget> {
  constructor(
    options: DocumentRegistry.IWidgetFactoryOptions<DocumentWidget>,
    private readonly tabs: DesignerTabs,
    private readonly kind: Kind,
  ) {
    super(options);
  }

  protected createNewWidget(context: DocumentRegistry.Context): DocumentWidget {
    // A plain toolbar: JupyterLab's default (reactive) one measures itself a tick after it is shown, and this
    // widget is gone by then ("Cannot read properties of null (reading 'promise')" on every double-click).
    const widget = new DocumentWidget({ content: new Widget(), context, toolbar: new Toolbar() });
    const file = context.localPath;
    // After the document manager has added it to the shell (it does so right after this returns).
    queueMicrotask(() => {
      widget.dispose();
      this.tabs.open({ kind: this.kind, file }).catch((reason) =>
        Notification.error(`DL Designer: ${file} could not be opened: ${reason}`),
      );
    });
    return widget;
  }
}

export function registerDefaultOpeners(app: JupyterFrontEnd, tabs: DesignerTabs): void {
  app.docRegistry.addModelFactory(new PathOnlyModelFactory());
  const factories: [string, string, string, Kind][] = [
    ["DL Designer", ONNX_FILE_TYPE, "DL Designer", "open"],
    ["DL Designer Report Viewer", REPORT_FILE_TYPE, "DL Designer Report Viewer", "report"],
    ["DL Designer Engine Graph", ENGINE_FILE_TYPE, "DL Designer (Engine Graph)", "engine"],
  ];
  for (const [name, fileType, label, kind] of factories) {
    const factory = new HandOffFactory(
      { name, label, fileTypes: [fileType], defaultFor: [fileType], modelName: PATH_ONLY_MODEL, readOnly: true },
      tabs,
      kind,
    );
    app.docRegistry.addWidgetFactory(factory);
  }
}
