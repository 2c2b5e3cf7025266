/**
 * Save As for a designer tab: JupyterLab's folder dialog, then the file name (".onnx" added when missing). Where no
 * document manager is at hand (a front end without the file browser) the name is asked for in the tab's folder.
 */
import { InputDialog } from "@jupyterlab/apputils";
import { PathExt } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { FileDialog } from "@jupyterlab/filebrowser";

/** The server path to save to, or null when the user cancelled. `key` is the tab's path; `file` its model's, if any. */
export async function askSavePath(
  docManager: IDocumentManager | null,
  key: string,
  file: string | undefined,
): Promise<string | null> {
  const name = file ? PathExt.basename(file) : PathExt.basename(key);
  let folder = PathExt.dirname(key);
  if (docManager) {
    const chosen = await FileDialog.getExistingDirectory({
      manager: docManager,
      title: "Save ONNX model as: choose a folder",
      defaultPath: folder,
    });
    if (!chosen.button.accept) return null;
    folder = chosen.value?.[0]?.path ?? folder;
  }
  const named = await InputDialog.getText({
    title: `Save ONNX model as: file name in /${folder}`,
    text: name,
    okLabel: "Save",
  });
  if (!named.button.accept || !named.value) return null;
  const chosenFile = named.value.endsWith(".onnx") ? named.value : `${named.value}.onnx`;
  return PathExt.join(folder, chosenFile);
}
