"""What the Convert to FP16 and Sanitize dialogs share: where the result goes (a new file, or this model as one
undo step), "compare outputs", Finish, the busy part (job.py) and the status report (status.py).

The transform's plan is computed on the job's thread (the slow part: Polygraphy and the onnxruntime comparison);
a FilePlan is written there too, while an EditPlan is executed back on the kernel's main thread, where every
other edit of the document happens, so the whole transform lands as ONE undo step and the canvas redraws once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.document import Document
from dld_jupyter.formats.html_text import bold, join, small, tag
from dld_jupyter.formats.output_paths import check_outputs
from dld_jupyter.transforms.progress import CancelToken, Progress
from dld_jupyter.transforms.transform import EditPlan, Plan
from dld_jupyter.widgets.tools.check_original import check_button
from dld_jupyter.widgets.tools.job import Job
from dld_jupyter.widgets.widget_base import DldVBox

NEW_FILE = "Write a new model file"
IN_PLACE = "Apply to this model (one undo step)"
STYLE = {"description_width": "150px"}


def default_output(doc: Document, suffix: str) -> str:
    """`<model>_<suffix>.onnx` beside the model's file (the working folder for an unsaved model)."""
    home = Path(doc.path) if doc.path is not None else Path(os.getcwd()) / f"{doc.name}.onnx"
    return str(home.with_name(f"{home.stem}_{suffix}.onnx"))


class ModelDialog(DldVBox, css="dld-tool-dialog"):
    """Base of a whole-model transform dialog; subclasses set `title`, `intro`, `suffix` and write `options()`,
    `plan(doc, path, progress, cancel)` and `status(result)`."""

    title = ""
    intro = ""
    suffix = "out"

    def __init__(self, target: Any, output: str | None = None, in_place: bool = False, compare: bool = True) -> None:
        self.target = target
        self.result: Any = None
        doc: Document = target.document
        self.destination = w.RadioButtons(options=[NEW_FILE, IN_PLACE], value=IN_PLACE if in_place else NEW_FILE,
                                          layout=w.Layout(width="auto"))
        self.destination.add_class("dld-tool-destination")
        self.output = w.Text(value=output or default_output(doc, self.suffix), description="Output path",
                             style=STYLE, layout=w.Layout(width="560px"))
        self.output.add_class("dld-tool-output")
        self.destination.observe(lambda _c: self._sync(), names="value")
        self.compare = w.Checkbox(value=compare, description="Compare outputs with the original (onnxruntime)",
                                  indent=False, layout=w.Layout(width="auto"))
        self.finish_button = w.Button(description="Finish", icon="check", button_style="primary",
                                      layout=w.Layout(width="auto"))
        self.finish_button.add_class("dld-tool-finish")
        self.close_button = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        self.close_button.on_click(lambda _b: self.close())
        self.finish_button.on_click(lambda _b: self.run())
        self.job = Job()
        self.status_area = w.VBox([])
        header = w.HTML(join([bold(self.title), " ", small(doc.name), tag("div", small(self.intro))]))
        form = w.VBox([*self.options(), self.destination, self.output, self.compare])
        super().__init__([header, form, w.HBox([self.finish_button, self.close_button]), self.job, self.job.error,
                          self.status_area], layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)",
                                                             padding="6px"))
        self._sync()

    def options(self) -> list[w.Widget]:
        return []

    def plan(self, doc: Document, path: str | None, progress: Progress, cancel: CancelToken) -> Plan[Any]:
        raise NotImplementedError

    def status(self, result: Any, in_place: bool) -> w.Widget:
        raise NotImplementedError

    def _sync(self) -> None:
        self.output.disabled = self.destination.value == IN_PLACE
        self.output.layout.display = "none" if self.output.disabled else ""

    def _set_busy(self, busy: bool) -> None:
        self.finish_button.disabled = busy
        for child in (self.destination, self.output, self.compare, *self.options_widgets()):
            child.disabled = busy
        if not busy:
            self._sync()

    def options_widgets(self) -> list[w.Widget]:
        return []

    def run(self) -> None:
        """Start the transform with the form's values; the status replaces the form's result area when done."""
        doc: Document = self.target.document
        in_place = self.destination.value == IN_PLACE
        path = None if in_place else self.output.value.strip()
        if not in_place and not path:
            self.job.show_error(f"{self.title}: give the output path, or choose “{IN_PLACE}”.")
            return
        try:
            self.check_options()
            if path is not None:  # the new file never replaces the open model, its weights or a folder
                check_outputs({"output path": path}, models=[doc.path] if doc.path is not None else [])
        except ValueError as error:  # OutputPathError is one
            self.job.show_error(str(error))
            return
        self.status_area.children = []
        self._set_busy(True)

        def work(progress: Progress, cancel: CancelToken) -> Any:
            plan = self.plan(doc, path, progress, cancel)
            return plan if isinstance(plan, EditPlan) else plan.execute(doc)

        def finish(outcome: Any) -> None:
            self._set_busy(False)
            self.result = outcome.execute(doc) if isinstance(outcome, EditPlan) else outcome
            self.status_area.children = [self.status(self.result, in_place), check_button(self, in_place, path)]

        self.job.start(self.title, work, finish, lambda _text: self._set_busy(False))

    def check_options(self) -> None:
        """Raise ValueError for an option the form cannot run with (shown in the dialog)."""

    def wait(self, timeout: float | None = None) -> Any:
        self.job.wait(timeout)
        return self.result
