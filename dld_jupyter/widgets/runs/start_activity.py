"""The Start Activity dialog (seed 000: "Both export and profiling activities can be launched from the Start Activity
dialog … ONNX models can also be profiled from the Start Activity dialog without opening them beforehand"): a model
file, the activity, and that activity's own form.

Why a dialog of its own: profiling or exporting needed the model open in a designer (its Profile and Export panels),
which builds the whole canvas of a model the user only wants measured. Here the model stays a file. Nothing is built
beside the designer's forms: the activity's form IS the Profile panel, the Export TensorRT Engine panel or the Sweep
form (each on the one run panel: target chooser with the saved remote connections, Run/Cancel, progress, log, the
artifacts), handed the path, so the runs go through the same spec builders and the scheduler as every other door,
and show in the Runs list. A new path or activity builds that form again (its defaults, such as the report or engine
beside the model, follow the model); while a run is under way both are locked.

In JupyterLab the dialog is a tab (launcher card "Start Activity", command palette, the file browser's context menu
on an .onnx file; js/src/lab/start_activity.ts) backed by its own kernel, as a designer tab is. The tab's link
(lab/document_tabs.py, through frontdoor.run_source.TabbedRuns) sets `open_report_tab`, so a finished profile's
report opens in the report viewer in a tab beside it, and offers Browse… (`allow_browse`), which asks JupyterLab's
file dialog and gets the choice back through `set_model`. In a notebook the report shows below the form and
Browse… is hidden (type the path).

    dld.start_activity("model.onnx")                         # profile, the form pre-filled
    dld.start_activity("model.onnx", "export", fp16=True)     # export a TensorRT engine
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.formats.html_text import join, tag, text
from dld_jupyter.frontdoor.results_tab import ResultsOpener, ResultsTab
from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel
from dld_jupyter.widgets.designer.profile_panel import ProfilePanel
from dld_jupyter.widgets.runs.panel import RunPanel
from dld_jupyter.widgets.sweep.sweep_form import SweepPanel
from dld_jupyter.widgets.widget_base import DldVBox

FORMS: dict[str, type[RunPanel]] = {"profile": ProfilePanel, "export": ExportEnginePanel, "sweep": SweepPanel}
LABELS = {"profile": "Profile Model", "export": "Export TensorRT Engine", "sweep": "Sweep"}
MODEL_SUFFIX = ".onnx"


def model_problem(path: str) -> str | None:
    """Why `path` (as typed, relative to the kernel's folder) is no model file to run an activity on; None if it is."""
    folder = os.getcwd()
    if not path.strip():
        return f"Choose the ONNX model: type its path (relative to {folder}) or pick it with Browse…"
    file = Path(path).expanduser()
    if not file.exists():
        return (f"{path}: no such file (paths are relative to {folder}); type the path of an existing "
                f"{MODEL_SUFFIX} model or pick it with Browse…")
    if file.is_dir():
        return f"{path} is a folder; choose the {MODEL_SUFFIX} model file inside it"
    if file.suffix.lower() != MODEL_SUFFIX:
        return f"{path} is not an ONNX model ({MODEL_SUFFIX}); choose the {MODEL_SUFFIX} file to run the activity on"
    if not os.access(file, os.R_OK):
        return f"{path} cannot be read (permission denied); make it readable or choose another model"
    return None


class StartActivity(DldVBox, css="dld-start-activity"):
    """See the module docstring. `settings` pre-fill the first form (that activity's options, refused if unknown)."""

    def __init__(self, model: str | os.PathLike[str] = "", activity: str = "profile", **settings: Any) -> None:
        if activity not in FORMS:
            raise ValueError(f"activity {activity!r} is not one of {sorted(FORMS)}")
        self.open_report_tab: Callable[[str], bool] | None = None  # set by a JupyterLab tab (TabbedRuns)
        self.open_results_tab: ResultsOpener | None = None  # the same: a sweep's results in a tab beside it
        self.pick_model: Callable[[], None] | None = None  # set by a JupyterLab tab: Browse… opens its file dialog
        self.form: RunPanel | None = None
        self._settings: dict[str, Any] = dict(settings)
        # Checked as it is typed: the reason shows at once, the form as soon as the path names a model file.
        self.path = w.Text(value=os.fspath(model), description="ONNX model", placeholder="path/to/model.onnx",
                           style={"description_width": "90px"}, layout=w.Layout(width="560px"))
        self.path.add_class("dld-start-model")
        self.browse_button = w.Button(description="Browse…", icon="folder-open", layout=w.Layout(display="none"),
                                      tooltip="Choose the model in JupyterLab's file dialog")
        self.browse_button.on_click(lambda _b: self.browse())
        self.activity = w.ToggleButtons(options=[(LABELS[key], key) for key in FORMS], value=activity,
                                        description="Activity", style={"description_width": "90px",
                                                                       "button_width": "auto"})
        self.problem = w.HTML("")
        self.form_slot = w.VBox([])
        title = w.HTML(join([tag("b", "Start Activity"), " ",
                             tag("small", "profile, export or sweep a model file without opening it")]))
        super().__init__([title, w.HBox([self.path, self.browse_button]), self.activity, self.problem,
                          self.form_slot])
        self.path.observe(lambda _c: self._choose(), "value")
        self.activity.observe(lambda _c: self._choose(), "value")
        self._shown: tuple[str, str] = ("", "")
        self._build()

    # -- what the tab sets -----------------------------------------------------------------------------------------
    def allow_browse(self, pick: Callable[[], None] | None) -> None:
        """Offer Browse… (`pick` opens a file dialog that calls `set_model`), or hide it (None)."""
        self.pick_model = pick
        self.browse_button.layout.display = "" if pick is not None else "none"

    def browse(self) -> None:
        if self.pick_model is not None and not self._running():
            self.pick_model()

    def set_model(self, path: str) -> None:
        """The model chosen elsewhere (the file dialog): as if typed in the field."""
        self.path.value = path

    # -- the form --------------------------------------------------------------------------------------------------
    @property
    def model(self) -> str:
        return str(self.path.value).strip()

    def _running(self) -> bool:
        handle = self.form.handle if self.form is not None else None
        return handle is not None and not handle.done

    def _choose(self) -> None:
        """A new path or activity: its form, unless a run is under way (then both go back and it says why)."""
        if (self.model, str(self.activity.value)) == self._shown:
            return
        if self._running():
            model, activity = self._shown
            self.path.value, self.activity.value = model, activity
            self._say("A run is under way: cancel it (or wait for it) before choosing another model or activity.")
            return
        self._build()

    def _build(self) -> None:
        model, activity = self.model, str(self.activity.value)
        self._shown = (model, activity)
        problem = model_problem(model)
        self._say(problem or "")
        if problem is not None:
            self.form, self.form_slot.children = None, []
            return
        settings, self._settings = self._settings, {}  # the options given at the start fill the first form only
        form = FORMS[activity](model, **settings)
        form.tab = self._tab
        form.results_tab = self._results_tab
        # Cancel is enabled exactly while the form's run is under way: model and activity are locked meanwhile.
        form.cancel_button.observe(lambda change: self._lock(not change["new"]), "disabled")
        self.form, self.form_slot.children = form, [form]

    def _lock(self, running: bool) -> None:
        self.path.disabled = self.activity.disabled = self.browse_button.disabled = running

    def _say(self, said: str) -> None:
        self.problem.value = tag("div", text(said), class_="dld-start-error", style="color:#b91c1c") if said else ""

    def _tab(self, name: str, path: str) -> bool:
        """A finished run's report opens in a tab beside this one when a JupyterLab tab shows the dialog."""
        opener = self.open_report_tab
        return name == "report" and opener is not None and opener(path)

    def _results_tab(self, results: ResultsTab) -> bool:
        """A sweep's results open in a tab beside this one when a JupyterLab tab shows the dialog."""
        opener = self.open_results_tab
        return opener is not None and opener(results)

    # -- scripts and tests -----------------------------------------------------------------------------------------
    def run(self) -> Any:
        """Start the chosen activity with the form's settings (its Run button); None when it could not start (the
        dialog or the form says why)."""
        if self.form is None:
            self._say(model_problem(self.model) or "Choose a model first.")
            return None
        return self.form.run()


def start_activity(model: str | os.PathLike[str] = "", activity: str = "profile", run: bool = False,
                   **settings: Any) -> StartActivity:
    """The Start Activity dialog for a model file; `run=True` starts the activity at once."""
    dialog = StartActivity(model, activity, **settings)
    if run:
        dialog.run()
    return dialog
