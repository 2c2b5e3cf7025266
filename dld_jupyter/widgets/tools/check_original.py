""""Check against original" under a finished Convert to FP16 or Sanitize (issue 30): the divergence of the result
against the model it came from, drawn on the designer's canvas with its table (overlays/divergence.py).

Applied to this model (one undo step): the saved file is the reference and the canvas shows the edited candidate.
Written to a new file: the open model is the reference (shown) and the new file the candidate. The run goes to the
activity worker (seconds on real models) with the dialog job's progress (windows done / total) and Cancel (ends the
window in flight, the private copies removed); its headline lands under the status; errors show in the dialog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.formats.html_text import small, tag


def check_button(dialog: Any, in_place: bool, path: str | None) -> w.Button:
    button = w.Button(description="Check against original", icon="search", layout=w.Layout(width="auto"),
                      tooltip="Run both models on the same inputs and find the first node whose values part")
    button.add_class("dld-tool-check")
    button.on_click(lambda _b: check_against_original(dialog, in_place, path, button))
    return button


def check_against_original(dialog: Any, in_place: bool, path: str | None, button: w.Button | None = None) -> None:
    from dld_jupyter.frontdoor.compare_runs import divergence_of, start_divergence

    target = dialog.target
    doc = target.document
    if in_place:
        if doc.path is None or not Path(doc.path).is_file():
            dialog.job.show_error("Check against original: this model was never saved, so there is no original to "
                                  "compare with. Write the result to a new file instead.")
            return
        reference, candidate, side = doc.path, doc, "candidate"
        source = f"{Path(doc.path).name} (saved) vs. this model"
    else:
        reference, candidate, side = doc, path, "reference"
        source = f"this model vs. {Path(str(path)).name}"
    if button is not None:
        button.disabled = True
    revision = target.canvas.overlays.revision

    def finish(result: Any) -> None:
        if button is not None:
            button.disabled = False
        target.canvas.overlays.check_revision(revision, "Check against original")  # not edited while it ran
        target.show_divergence(result, side, source)
        dialog.status_area.children = (*dialog.status_area.children,
                                       w.HTML(tag("div", small(result.headline()), class_="dld-tool-check-result")))

    def failed(_text: str) -> None:
        if button is not None:
            button.disabled = False

    try:
        dialog.job.watch("Check against original", lambda heard: start_divergence(reference, candidate,
                                                                                  on_progress=heard),
                         divergence_of, finish, failed)
    except ActivityError as error:  # a provider not installed, a model that cannot be copied: said in the dialog
        failed(str(error))
        dialog.job.show_error(f"Check against original: {error}")
