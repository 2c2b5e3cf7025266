"""The ONNX Runtime profiling panel (seed 000 "Profiling with ONNX Runtime"): settings form, then progress, log and
Cancel while the activity runs in its worker process, then the report viewer of the result (reports open
automatically from a finished profile activity). Errors are shown in the panel, never raised into the notebook.

    from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook
    profile_in_notebook("model.onnx", iterations=50)          # the form, pre-filled
    profile_in_notebook(designer, run=True)                   # the Designer's "Profile" button: run at once

The engine's callbacks arrive on its reader thread; ipykernel sends widget updates from any thread.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import threading
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.engine import start_activity
from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.activities.result import ActivityResult, LogLine, Progress
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.runtimes.onnxruntime.spec import PROVIDERS, OrtProfileSpec
from dld_jupyter.activities.spec import REPORT_SUFFIX
from dld_jupyter.formats.html_text import fill, tag, text
from dld_jupyter.frontdoor.runs import track

NOT_SETTINGS = ("model", "source_document")  # what to profile, not how
SETTINGS = tuple(f.name for f in dataclasses.fields(OrtProfileSpec) if f.name not in NOT_SETTINGS)
LOG_LINES = 300  # the log box keeps the last lines; the full log stays in `.result.logs`
INPUTS = {"auto (random unless a folder is given)": None, "random": True, "from folder": False}
BACKENDS = ("ONNX Runtime", "TensorRT")
TITLE = "<b>Profile with {}</b> <small>{}</small>"  # backend, model path (escaped by fill)


def _check_settings(settings: dict[str, Any]) -> None:
    for key in settings:
        if key not in SETTINGS:
            close = difflib.get_close_matches(key, SETTINGS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"profile panel: unknown setting {key!r}{hint} (settings: {', '.join(SETTINGS)})")


def _model_source(model: Any) -> tuple[str, str | None]:
    """(path to profile, the document's own file when that path is a kept copy of its unsaved edits)."""
    from dld_jupyter.activities.model_source import profiled_source

    document = getattr(model, "document", None)  # a Designer
    path, _default_output, source = profiled_source(document if document is not None else model)
    return path, source


class ProfilePanel(w.VBox):  # type: ignore[misc]
    """Settings form + run/cancel + progress + log + the report viewer of the result."""

    def __init__(self, model: Any, **settings: Any) -> None:
        _check_settings(settings)
        defaults = {f.name: f.default for f in dataclasses.fields(OrtProfileSpec) if f.name not in NOT_SETTINGS}
        values = {**defaults, **settings}
        self.model = model
        self.handle: Run | None = None
        self.result: ActivityResult | None = None
        self.viewer: Any = None
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self.fields = self._form(values)
        self.run_button = w.Button(description="Profile", icon="play", button_style="primary")
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.progress = w.FloatProgress(value=0.0, min=0.0, max=1.0, layout=w.Layout(width="260px"))
        self.phase = w.HTML("")
        box = w.Layout(width="100%", height="120px", display="none")
        self.log_box = w.Textarea(value="", disabled=True, layout=box)
        self.error = w.HTML("")
        self.report_area = w.VBox([])
        self.run_button.on_click(lambda _b: self.run())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.title = w.HTML(fill(TITLE, "ONNX Runtime", self._model_label()))
        columns = "repeat(auto-fill, minmax(240px, 320px))"  # three columns when wide, one in a narrow dock
        self.grid = w.GridBox(list(self.fields.values()), layout=w.Layout(grid_template_columns=columns))
        # The backend choice (seed: "TensorRT or ONNX Runtime as the inference framework"): TensorRT's pages and
        # its unavailable reason replace the ONNX Runtime form (trt_form.py).
        from dld_jupyter.widgets.designer.trt_form import TrtProfileForm

        self.trt = TrtProfileForm()
        self.trt.box.layout.display = "none"
        self.backend = w.ToggleButtons(options=BACKENDS, value=BACKENDS[0], description="Backend")
        self.backend.observe(lambda _c: self._show_backend(), names="value")
        controls = w.HBox([self.run_button, self.cancel_button, self.progress, self.phase])
        super().__init__([self.title, self.backend, self.grid, self.trt.box, controls, self.error, self.log_box,
                          self.report_area])
        self.add_class("dld-profile-panel")

    def _model_label(self) -> str:
        path = getattr(getattr(self.model, "document", self.model), "path", self.model)
        return str(path) if path is not None else "(unsaved model)"

    @staticmethod
    def _form(v: dict[str, Any]) -> dict[str, w.Widget]:
        style = {"description_width": "130px"}
        layout = w.Layout(width="100%", max_width="310px")  # narrower in a narrow dock
        inputs = next(label for label, value in INPUTS.items() if value == v["random_inputs"])

        def num(kind: type[w.Widget], name: str, label: str, tooltip: str, value: Any) -> w.Widget:
            low = 1 if name in ("iterations", "sampling_ms") else 0
            return kind(value=value, min=low, max=10**9, description=label, tooltip=tooltip, style=style, layout=layout)

        return {
            "iterations": num(
                w.BoundedIntText, "iterations", "Passes", "Measured passes (warm-up excluded)", v["iterations"]
            ),
            "warmup": num(w.BoundedIntText, "warmup", "Warm-up passes", "Passes run before measuring", v["warmup"]),
            "provider": w.Dropdown(
                options=sorted(PROVIDERS), value=v["provider"], description="Provider", style=style, layout=layout
            ),
            "optimize": w.Checkbox(
                value=v["optimize"], description="Graph optimization (all)", indent=False, layout=layout
            ),
            "random_inputs": w.Dropdown(
                options=list(INPUTS), value=inputs, description="Input data", style=style, layout=layout
            ),
            "input_folder": w.Text(
                value=v["input_folder"] or "",
                description="Input folder",
                placeholder="one <input>.pb per input",
                style=style,
                layout=layout,
            ),
            "batch_size": num(
                w.BoundedIntText,
                "batch_size",
                "Batch size",
                "0: the model's own (free dims become 1)",
                v["batch_size"] or 0,
            ),
            "device": num(w.BoundedIntText, "device", "GPU index", "CUDA device and NVML index", v["device"]),
            "output": w.Text(
                value=v["output"] or "",
                description="Report file",
                placeholder="<model>.dld-report.json",
                style=style,
                layout=layout,
            ),
            "seed": num(w.BoundedIntText, "seed", "Random seed", "Seed of the random input data", v["seed"]),
            "threads": num(w.BoundedIntText, "threads", "Intra-op threads", "0 lets ONNX Runtime decide", v["threads"]),
            "gpu_metrics": w.Checkbox(
                value=v["gpu_metrics"], description="GPU metrics (NVML)", indent=False, layout=layout
            ),
            "lock_clocks": w.Checkbox(
                value=v["lock_clocks"], description="Lock GPU clocks to base", indent=False, layout=layout
            ),
            "sampling_ms": num(
                w.BoundedFloatText, "sampling_ms", "Sampling (ms)", "GPU metric sampling interval", v["sampling_ms"]
            ),
            "hide_non_compute": w.Checkbox(
                value=v["hide_non_compute"], description="Hide non-compute operations", indent=False, layout=layout,
                tooltip="GPU: inputs copied to the device once, outputs kept there; passes time the compute alone",
            ),
        }

    def settings(self) -> dict[str, Any]:
        """The form as OrtProfileSpec keyword arguments."""
        f = {name: field.value for name, field in self.fields.items()}
        f["random_inputs"] = INPUTS[f["random_inputs"]]
        f["input_folder"] = f["input_folder"] or None
        f["output"] = f["output"] or None
        f["batch_size"] = f["batch_size"] or None
        return f

    def _show_backend(self) -> None:
        tensorrt = self.backend.value == "TensorRT"
        self.title.value = fill(TITLE, self.backend.value, self._model_label())
        self.grid.layout.display = "none" if tensorrt else ""
        self.trt.box.layout.display = "" if tensorrt else "none"
        self.run_button.disabled = self._refused()  # the reason is shown in the TensorRT box
        self._show_error("")

    def _refused(self) -> bool:
        return self.backend.value == "TensorRT" and self.trt.reason is not None

    def spec(self, path: str) -> Any:
        """The spec of the chosen backend (OrtProfileSpec or TrtProfileSpec)."""
        if self.backend.value == "TensorRT":
            return self.trt.spec(path, self.fields["output"].value or None)
        return OrtProfileSpec(model=path, **self.settings())

    # -- running ----------------------------------------------------------------------------------------------
    def run(self) -> Run | None:
        """Start profiling with the form's settings; returns the running activity (None when it could not start)."""
        if self.handle is not None and not self.handle.done:
            self._show_error("A profile is already running: cancel it first.")
            return None
        self._show_error("")
        if self.backend.value == "TensorRT" and self.trt.reason is not None:
            self._show_error(f"unavailable: {self.trt.reason}")
            return None
        self.report_area.children = []
        self._lines = []
        try:
            path, source = _model_source(self.model)
            spec = self.spec(path)
            if isinstance(spec, OrtProfileSpec):  # the report links back to the document's own file
                spec = dataclasses.replace(spec, source_document=source)
            if not spec.output:  # beside the model's own file, not beside a copy of its unsaved edits
                spec = dataclasses.replace(spec, output=_default_output(self.model, path))
            spec.check_outputs([source])  # the report never replaces the model (nor its copy's original)
        except (ActivityError, OSError, ValueError, TypeError) as error:
            self._show_error(f"Cannot start: {error}")
            return None
        self._done = threading.Event()
        self._set_running(True)
        track()  # the live runs registry lists this run
        self.handle = start_activity(spec, on_progress=self._on_progress, on_log=self._on_log)
        threading.Thread(target=self._wait, args=(self.handle,), name="dld-profile-panel", daemon=True).start()
        return self.handle

    def cancel(self) -> None:
        if self.handle is not None and not self.handle.done:
            self.phase.value = "cancelling…"
            self.handle.cancel()

    def wait(self, timeout: float | None = None) -> ActivityResult | None:
        """Block until the run and its report viewer are done (for scripts and tests)."""
        if self.handle is None:
            return None
        self.handle.wait(timeout)
        self._done.wait(timeout)
        return self.result

    def _on_progress(self, progress: Progress) -> None:
        self.progress.value = max(0.0, min(1.0, progress.fraction))
        self.phase.value = text(f"{progress.phase} {progress.fraction:.0%}")

    def _on_log(self, line: LogLine) -> None:
        with self._lock:
            self._lines.append(f"[{line.level}] {line.message}")
            del self._lines[:-LOG_LINES]
            self.log_box.value = "\n".join(self._lines)

    def _wait(self, handle: Run) -> None:
        result = handle.wait()
        try:
            if result is not None:
                self._finish(result)
        finally:
            self._set_running(False)
            self._done.set()

    def _finish(self, result: ActivityResult) -> None:
        self.result = result
        if result.ok and result.report_path:
            from dld_jupyter.widgets.report.report_viewer import show_report

            self.progress.value = 1.0
            self.phase.value = text(f"done in {result.duration_s:.1f} s: {result.report_path}")
            if self._report_in_tab(result.report_path):
                return
            self.viewer = show_report(result.report_path)
            self.report_area.children = [self.viewer, self.viewer.designer_area]
            self._heat_on_designer(result.report_path)
        elif result.error_kind == "cancelled":
            self.phase.value = "cancelled"
        else:
            self.phase.value = result.status.value
            self._show_error(f"Profiling {result.status.value} ({result.error_kind}): {result.error}")
            self.log_box.layout.display = ""

    def _report_in_tab(self, report_path: str) -> bool:
        """In a JupyterLab designer tab: the report opens in its own tab split beside it (same kernel, so its name
        links focus this designer) and the heat goes on the canvas; False in a notebook (the report shows below)."""
        opener = getattr(self.model, "open_report_tab", None)
        if not callable(opener) or not opener(report_path):
            return False
        self.phase.value += " (opened in its own tab)"
        self._show_heat(self.model.show_heat, report_path)
        return True

    def _show_heat(self, show_heat: Any, report_path: str) -> None:
        # Runs on the profile's waiting thread too: any failure (a ReportError is no ValueError) is shown here,
        # not left to the kernel's stderr.
        try:
            show_heat(report_path)
        except Exception as error:
            self._show_error(f"The heat could not be shown on the canvas: {error}")

    def _heat_on_designer(self, report_path: str) -> None:
        """Profiled from a designer: its canvas shows the report's heat, and the viewer's layer selection selects
        on that canvas (designer.clear_heat() or the legend's X take the heat off)."""
        show_heat = getattr(self.model, "show_heat", None)
        if not callable(show_heat) or self.viewer is None:
            return
        self.viewer.designer = self.model

        def show(_button: Any = None) -> None:
            self._show_heat(show_heat, report_path)

        self.heat_button = w.Button(description="Heat on canvas", icon="fire", layout=w.Layout(width="auto"),
                                    tooltip="Colour the canvas by this report's layer times (the legend's × hides it)")
        self.heat_button.on_click(show)
        self.report_area.children = [self.heat_button, *self.report_area.children]
        show()

    def _set_running(self, running: bool) -> None:
        self.run_button.disabled = running or self._refused()
        self.cancel_button.disabled = not running
        self.trt.disable(running)
        self.backend.disabled = running
        self.log_box.layout.display = "" if running else self.log_box.layout.display
        for field in self.fields.values():
            field.disabled = running
        if running:
            self.progress.value = 0.0
            self.phase.value = "starting…"

    def _show_error(self, text: str) -> None:
        self.error.value = tag("div", text, class_="dld-profile-error", style="color:#b91c1c") if text else ""


def _default_output(model: Any, path: str) -> str:
    """`<model stem>.dld-report.json` beside the user's model file (not beside a temporary copy)."""
    home = getattr(getattr(model, "document", model), "path", None)
    source = Path(os.fspath(home) if isinstance(home, (str, os.PathLike)) else path)
    return str(source.with_name(source.stem + REPORT_SUFFIX))


def profile_in_notebook(model: Any, run: bool = False, **settings: Any) -> ProfilePanel:
    """The profiling panel for a model path, a Document or a Designer (the Designer's "Profile" button calls this).

    `settings` are OrtProfileSpec options (iterations, warmup, provider, optimize, ...), pre-filled in the form;
    `run=True` starts at once. The report viewer appears in the panel when the run succeeds.
    """
    panel = ProfilePanel(model, **settings)
    if run:
        panel.run()
    return panel
