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
from dld_jupyter.activities.model_source import release_copy
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.runtimes import runtime_named
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import ENGINE_SUFFIX, METADATA_SUFFIX, TrtBuildSpec
from dld_jupyter.widgets.designer.profile_panel import _model_source
from dld_jupyter.widgets.designer.trt_form import STYLE, TrtSettingsForm, command_area, command_text, unavailable_html
from dld_jupyter.widgets.runs.panel import RunPanel


def _home(model: Any) -> Path | None:
    path = getattr(getattr(model, "document", model), "path", None)
    return Path(path) if path is not None else None


class ExportEnginePanel(RunPanel):
    """Outputs + the three settings pages + Show command + unavailable reason, in the run panel."""

    what = "Export"
    error_class = "dld-export-error"

    def __init__(self, model: Any, **settings: Any) -> None:
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
        self.reason = runtime_named("tensorrt").available()
        self.unavailable = w.HTML(unavailable_html(self.reason))
        self.command = command_area()
        pages = w.HBox(self.form.pages(), layout=w.Layout(flex_flow="row wrap"))
        form = [self.engine, self.metadata, self.open_metadata, pages, self.unavailable]
        super().__init__(model, w.HTML("<b>Export TensorRT Engine</b>"), form, "Export", "microchip",
                         buttons=(self.show_button,), below=(self.command,))
        self.export_button = self.run_button
        self.export_button.disabled = self.reason is not None
        self.add_class("dld-export-engine-panel")

    # -- the spec -----------------------------------------------------------------------------------------------
    def spec(self, path: str) -> TrtBuildSpec:
        metadata = self.metadata.value.strip() or None
        return TrtBuildSpec(model=path, settings=self.form.settings(), engine=self.engine.value.strip() or None,
                            metadata=metadata, open_metadata=bool(metadata) and self.open_metadata.value)

    def show_command(self) -> dict[str, Any] | None:
        """Show the dry run: the trtexec command line and every resolved setting (no TensorRT needed)."""
        self.show_error("")
        path, source = _model_source(self.model)
        try:
            spec = self.spec(path)
            spec.check_outputs([_home(self.model)])  # the document's own file, when `path` is a copy of it
            data = dry_run(spec)
        except (ActivityError, OSError, ValueError, TypeError) as error:
            self.show_error(f"Cannot show the command: {error}")
            return None
        finally:
            if source:
                release_copy(path)
        self.command.value = command_text(data)
        self.command.layout.display = ""
        return data

    # -- what the run panel asks --------------------------------------------------------------------------------
    def refused(self) -> str | None:
        return self.reason

    def make_spec(self) -> TrtBuildSpec:
        path, source = _model_source(self.model)
        self.temporary = path if source else ""  # a copy of unsaved edits: the run panel removes it at the end
        spec = self.spec(path)
        spec.check_outputs([_home(self.model)])  # nothing starts that would overwrite the model
        self._spec = spec
        return spec

    def skip(self, result: ActivityResult) -> Collection[str]:
        """The layer information opens as an engine graph only when the box is ticked."""
        return () if self._spec is not None and self._spec.open_metadata else ("layer_info",)

    def done_text(self, result: ActivityResult) -> str:
        spec = self._spec
        if spec is None:
            return super().done_text(result)
        said = spec.engine_path()
        return said + (f" — layer information: {spec.metadata}" if spec.metadata else "")

    def _wait(self, handle: Any, spec: TrtBuildSpec | None = None) -> None:
        if spec is not None:
            self._spec = spec
        super()._wait(handle)

    def disable_form(self, running: bool) -> None:
        self.form.disable(running)
        for field in (self.engine, self.metadata, self.open_metadata):
            field.disabled = running
