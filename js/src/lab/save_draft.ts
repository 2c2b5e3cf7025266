/**
 * Save As of an invalid model (issue 26, item 4): the kernel's checker lists what is invalid and the user decides.
 * Before, Save As wrote a model no runtime would load without a word; a designer saves such a model only as a
 * draft the user asked for, as the seed's tool and other editors do.
 */
import { Dialog, showDialog } from "@jupyterlab/apputils";
import { Widget } from "@lumino/widgets";

const SHOWN = 8;

function paragraph(tag: "p" | "li", text: string): HTMLElement {
  const node = document.createElement(tag);
  node.textContent = text; // checker messages name tensors and nodes from the file: text, never markup
  return node;
}

/** List the checker's errors; true when the user chose to save a draft anyway. */
export async function confirmDraft(problems: string[]): Promise<boolean> {
  const body = document.createElement("div");
  body.className = "dld-DesignerDocument-invalid";
  const list = document.createElement("ul");
  list.append(...problems.slice(0, SHOWN).map((problem) => paragraph("li", problem)));
  if (problems.length > SHOWN) list.append(paragraph("li", `and ${problems.length - SHOWN} more`));
  body.append(
    paragraph("p", "The checker finds this model invalid:"),
    list,
    paragraph("p", "Runtimes will refuse it until it is fixed. Save it anyway as a draft?"),
  );
  const result = await showDialog({
    title: "Save an invalid model?",
    body: new Widget({ node: body }),
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: "Save Draft" })],
    defaultButton: 0,
  });
  return result.button.accept && result.button.label === "Save Draft";
}
