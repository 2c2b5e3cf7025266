"""The Export TensorRT Engine panel (seed 000 "Exporting a TensorRT Engine"): engine and metadata outputs, every
Common / Tactics / Optimizer option, "Show command" (the dry run's resolved settings and its trtexec command line,
which users reuse), plugged into the one run panel (widgets/runs/panel.py: Export with progress, log and Cancel in
the activity's worker process). When the export is done, the layer information opens as an engine graph if
"Open the metadata as an engine graph after export" is ticked (the artifact policy, frontdoor/artifacts.py).

Without TensorRT the panel says "unavailable: <the backend's reason and how to install>" and Export stays
disabled; everything else (the form, Show command) works, since the dry run needs no TensorRT. Errors are shown
in the panel, never raised into the notebook. The model's optimization profiles and layer precisions come from
the model itself (a dirty document is exported from a saved copy, as profiling does).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.activities.kinds.export_engine import export_spec
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import ENGINE_SUFFIX, METADATA_SUFFIX, TrtBuildSpec
from dld_jupyter.activities.thread_run import RunHandle
from dld_jupyter.frontdoor.run_source import RunInput
from dld_jupyter.widgets.designer.trt_form import STYLE, TrtSettingsForm, command_area, command_text, unavailable_html
from dld_jupyter.widgets.designer.trt_versions import follow_target
from dld_jupyter.widgets.runs.panel import RunPanel
from dld_jupyter.widgets.runs.targets import LOCAL, NEW_CONNECTION


def _home(model: RunInput) -> Path | None:
    """The user's own model file (None for a model never saved): the default outputs go beside it."""
    path = ModelRef.of(model).user_file
    return Path(path) if path is not None else None


class ExportEnginePanel(RunPanel):
    """Outputs + the three settings pages + Show command + unavailable reason, in the run panel."""

    what = "Export"
    error_class = "dld-export-error"

    def __init__(self, model: RunInput, **settings: Any) -> None:
        self.model = model
        self._spec: TrtBuildSpec | None = None
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
        self.show_button.on_click(lambda _b: self.show_command())
        self.reason = self.form.version.reason()  # the chosen TensorRT's, asked again when another is chosen
        self.unavailable = w.HTML(unavailable_html(self.reason))
        self.form.version.on_change(self._chosen)
        self.command = command_area()
        pages = w.HBox(self.form.pages(), layout=w.Layout(flex_flow="row wrap"))
        form = [self.engine, self.metadata, self.open_metadata, pages, self.unavailable]
        super().__init__(model, w.HTML("<b>Export TensorRT Engine</b>"), form, "Export", "microchip",
                         buttons=(self.show_button,), below=(self.command,))
        self.export_button = self.run_button
        follow_target(self.form.version, self.target, LOCAL, NEW_CONNECTION)  # a target's TensorRT is its own
        self.export_button.disabled = self.reason is not None
        self.add_class("dld-export-engine-panel")

    def _chosen(self) -> None:
        self.reason = self.form.version.reason()
        self.unavailable.value = unavailable_html(self.reason)
        self.export_button.disabled = self.reason is not None

    # -- the spec -----------------------------------------------------------------------------------------------
    def spec(self, model: ModelRef | str) -> TrtBuildSpec:
        """The form's export spec (`kinds.export_engine.export_spec`, as every front door builds it)."""
        metadata = self.metadata.value.strip() or None
        return export_spec(model, self.engine.value.strip() or None, metadata=metadata,
                           open_metadata=bool(metadata) and self.open_metadata.value, settings=self.form.settings())

    def show_command(self) -> dict[str, Any] | None:
        """Show the dry run: the trtexec command line and every resolved setting (no TensorRT needed)."""
        self.show_error("")
        try:
            with ModelRef.of(self.model) as ref:  # a copy of unsaved edits, removed once the command is shown
                data = dry_run(self.spec(ref))
        except (ActivityError, OSError, ValueError, TypeError) as error:
            self.show_error(f"Cannot show the command: {error}")
            return None
        self.command.value = command_text(data)
        self.command.layout.display = ""
        return data

    # -- what the run panel asks --------------------------------------------------------------------------------
    def refused(self) -> str | None:
        return self.reason

    def make_spec(self) -> TrtBuildSpec:
        """The run's spec; a copy of unsaved edits it reads is the run panel's to remove at the end (`model_ref`)."""
        self.model_ref = ModelRef.of(self.model)
        self._spec = self.spec(self.model_ref)
        return self._spec

    def skip(self, result: ActivityResult) -> Collection[str]:
        """The layer information opens as an engine graph only when the box is ticked."""
        return () if self._spec is not None and self._spec.open_metadata else ("layer_info",)

    def done_text(self, result: ActivityResult) -> str:
        spec = self._spec
        if spec is None:
            return super().done_text(result)
        said = spec.engine_path()
        return said + (f" — layer information: {spec.metadata}" if spec.metadata else "")

    def _wait(self, handle: RunHandle, spec: TrtBuildSpec | None = None) -> None:
        if spec is not None:
            self._spec = spec
        super()._wait(handle)

    def disable_form(self, running: bool) -> None:
        self.form.disable(running)
        for field in (self.engine, self.metadata, self.open_metadata):
            field.disabled = running
