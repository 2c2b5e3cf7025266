"""The Export TensorRT Engine panel (seed 000 "Exporting a TensorRT Engine"): engine and metadata outputs, every
Common / Tactics / Optimizer option, "Show command" (the dry run's resolved settings and its trtexec command line,
which users reuse), then Export with progress, log and Cancel in the activity's worker process.

Without TensorRT the panel says "unavailable: <the backend's reason and how to install>" and Export stays
disabled; everything else (the form, Show command) works, since the dry run needs no TensorRT. Errors are shown
in the panel, never raised into the notebook. The model's optimization profiles and layer precisions come from
the model itself (a dirty document is exported from a saved copy, as profiling does).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.engine import start_activity
from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.activities.result import ActivityResult, LogLine, Progress
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.runtimes import runtime_named
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import ENGINE_SUFFIX, METADATA_SUFFIX, TrtBuildSpec
from dld_jupyter.formats.html_text import tag, text
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.widgets.designer.profile_panel import _model_source
from dld_jupyter.widgets.designer.trt_form import STYLE, TrtSettingsForm, unavailable_html


def _home(model: Any) -> Path | None:
    path = getattr(getattr(model, "document", model), "path", None)
    return Path(path) if path is not None else None


class ExportEnginePanel(w.VBox):  # type: ignore[misc]
    """Outputs + the three settings pages + Show command / Export / Cancel + unavailable reason + progress."""

    def __init__(self, model: Any, **settings: Any) -> None:
        self.model = model
        self.handle: Run | None = None
        self.result: ActivityResult | None = None
        self._done = threading.Event()
        home = _home(model)
        self.form = TrtSettingsForm(TrtSettings(**settings))
        self.engine = w.Text(value=str(home.with_suffix(ENGINE_SUFFIX)) if home else "", description="Engine output",
                             placeholder="model.engine", style=STYLE, layout=w.Layout(width="560px"))
        self.metadata = w.Text(value=str(home.with_suffix(METADATA_SUFFIX)) if home else "",
                               description="Metadata output", placeholder="(blank: none) model.trt.json",
                               style=STYLE, layout=w.Layout(width="560px"))
        self.open_metadata = w.Checkbox(value=True, description="Open the metadata as an engine graph after export",
                                        indent=False)
        self.show_button = w.Button(description="Show command", icon="terminal")
        self.export_button = w.Button(description="Export", icon="microchip", button_style="primary")
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.show_button.on_click(lambda _b: self.show_command())
        self.export_button.on_click(lambda _b: self.run())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.reason = runtime_named("tensorrt").available()
        self.unavailable = w.HTML(unavailable_html(self.reason))
        self.export_button.disabled = self.reason is not None
        self.error = w.HTML("")
        self.command = w.Textarea(value="", disabled=True, layout=w.Layout(width="100%", height="120px",
                                                                         display="none"))
        self.progress = w.FloatProgress(value=0.0, min=0.0, max=1.0, layout=w.Layout(width="260px"))
        self.phase = w.HTML("")
        self.log_box = w.Textarea(value="", disabled=True, layout=w.Layout(width="100%", height="120px",
                                                                          display="none"))
        pages = w.HBox(self.form.pages(), layout=w.Layout(flex_flow="row wrap"))
        controls = w.HBox([self.show_button, self.export_button, self.cancel_button, self.progress, self.phase])
        title = w.HTML("<b>Export TensorRT Engine</b>")
        super().__init__([title, self.engine, self.metadata, self.open_metadata, pages, self.unavailable, controls,
                          self.error, self.command, self.log_box])
        self.add_class("dld-export-engine-panel")

    # -- the spec -----------------------------------------------------------------------------------------------
    def spec(self, path: str) -> TrtBuildSpec:
        metadata = self.metadata.value.strip() or None
        return TrtBuildSpec(model=path, settings=self.form.settings(), engine=self.engine.value.strip() or None,
                            metadata=metadata, open_metadata=bool(metadata) and self.open_metadata.value)

    def show_command(self) -> dict[str, Any] | None:
        """Show the dry run: the trtexec command line and every resolved setting (no TensorRT needed)."""
        self._show_error("")
        try:
            path, _source = _model_source(self.model)
            spec = self.spec(path)
            spec.check_outputs([_home(self.model)])  # the document's own file, when `path` is a copy of it
            data = dry_run(spec)
        except (ActivityError, OSError, ValueError, TypeError) as error:
            self._show_error(f"Cannot show the command: {error}")
            return None
        notes = "".join(f"\n# {note}" for note in data["trtexec"]["notes"])
        settings = json.dumps(data["spec"]["settings"], indent=1, sort_keys=True)
        self.command.value = f"{data['trtexec']['command']}{notes}\n\n# resolved settings\n{settings}"
        self.command.layout.display = ""
        return data

    # -- running ------------------------------------------------------------------------------------------------
    def run(self) -> Run | None:
        if self.reason is not None:  # the button is disabled; a script calling run() gets the same answer
            self._show_error(f"unavailable: {self.reason}")
            return None
        if self.handle is not None and not self.handle.done:
            self._show_error("An export is already running: cancel it first.")
            return None
        self._show_error("")
        try:
            path, _source = _model_source(self.model)
            spec = self.spec(path)
            spec.check_outputs([_home(self.model)])  # nothing starts that would overwrite the model
        except (ActivityError, OSError, ValueError, TypeError) as error:
            self._show_error(f"Cannot start: {error}")
            return None
        self._done = threading.Event()
        self._set_running(True)
        track()  # the live runs registry lists this run
        self.handle = start_activity(spec, on_progress=self._on_progress, on_log=self._on_log)
        threading.Thread(target=self._wait, args=(self.handle, spec), name="dld-export-engine", daemon=True).start()
        return self.handle

    def cancel(self) -> None:
        if self.handle is not None and not self.handle.done:
            self.phase.value = "cancelling…"
            self.handle.cancel()

    def _on_progress(self, progress: Progress) -> None:
        self.progress.value = max(0.0, min(1.0, progress.fraction))
        self.phase.value = text(f"{progress.phase} {progress.fraction:.0%}")

    def _on_log(self, line: LogLine) -> None:
        self.log_box.value = (self.log_box.value + f"[{line.level}] {line.message}\n")[-20000:]

    def _wait(self, handle: Run, spec: TrtBuildSpec) -> None:
        result = handle.wait()
        try:
            self.result = result
            if result is not None and result.ok:
                self.phase.value = text(f"done in {result.duration_s:.1f} s: {spec.engine_path()}")
                if spec.metadata:
                    self.phase.value += text(f" — layer information: {spec.metadata}")
            elif result is not None:
                self.phase.value = result.status.value
                self._show_error(f"Export {result.status.value} ({result.error_kind}): {result.error}")
                self.log_box.layout.display = ""
        finally:
            self._set_running(False)
            self._done.set()

    def _set_running(self, running: bool) -> None:
        self.export_button.disabled = running or self.reason is not None
        self.cancel_button.disabled = not running
        self.form.disable(running)
        if running:
            self.log_box.layout.display = ""
            self.progress.value = 0.0
            self.phase.value = "starting…"

    def _show_error(self, text: str) -> None:
        self.error.value = tag("div", text, class_="dld-export-error", style="color:#b91c1c") if text else ""

