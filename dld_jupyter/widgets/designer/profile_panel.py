"""The profiling panel (seed 000 "Profiling with ONNX Runtime" / "… with TensorRT"): the settings form plugged into
the one run panel (widgets/runs/panel.py: target, progress, log, Cancel while the activity runs in its worker
process), then the report of the result, opened through the artifact policy (frontdoor/artifacts.py: the viewer, and
the heat on the designer it came from). Errors are shown in the panel, never raised into the notebook.

    from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook
    profile_in_notebook("model.onnx", iterations=50)          # the form, pre-filled
    profile_in_notebook(designer, run=True)                   # the Designer's "Profile" button: run at once

The engine's callbacks arrive on its reader thread; ipykernel sends widget updates from any thread.
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.errors import ActivityError, SpecError
from dld_jupyter.activities.kinds.profile import profile_spec
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.runtimes.onnxruntime.spec import PROVIDERS, OrtProfileSpec
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtProfileSpec
from dld_jupyter.formats.html_text import fill
from dld_jupyter.frontdoor.artifacts import Opened
from dld_jupyter.frontdoor.run_source import RunInput
from dld_jupyter.widgets.designer.trt_form import command_area, command_text
from dld_jupyter.widgets.runs.panel import RunPanel

NOT_SETTINGS = ("model", "source_document")  # what to profile, not how
SETTINGS = tuple(f.name for f in dataclasses.fields(OrtProfileSpec) if f.name not in NOT_SETTINGS)
INPUTS = {"auto (random unless a folder is given)": None, "random": True, "from folder": False}
BACKENDS = ("ONNX Runtime", "TensorRT")
TITLE = "<b>Profile with {}</b> <small>{}</small>"  # backend, model path (escaped by fill)


def _check_settings(settings: dict[str, Any]) -> None:
    for key in settings:
        if key not in SETTINGS:
            close = difflib.get_close_matches(key, SETTINGS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"profile panel: unknown setting {key!r}{hint} (settings: {', '.join(SETTINGS)})")


# Settings that mean something only on a GPU (CUDA provider): disabled in the form while the CPU is chosen.
GPU_ONLY = ("device", "gpu_metrics", "lock_clocks", "kernel_records", "sampling_ms", "hide_non_compute")

class ProfilePanel(RunPanel):
    """The profile form (ONNX Runtime settings or TensorRT's pages) in the run panel (widgets/runs/panel.py)."""

    what = "Profiling"
    error_class = "dld-profile-error"

    def __init__(self, model: RunInput, **settings: Any) -> None:
        _check_settings(settings)
        defaults = {f.name: f.default for f in dataclasses.fields(OrtProfileSpec) if f.name not in NOT_SETTINGS}
        values = {**defaults, **settings}
        self.model = model
        self.viewer: Any = None
        self.fields = self._form(values)
        self._gpu_ticks: dict[str, bool] = {}  # the GPU-only ticks as the user left them, while the CPU is chosen
        self.fields["provider"].observe(lambda _c: self._show_provider(), names="value")
        self._show_provider()
        columns = "repeat(auto-fill, minmax(240px, 320px))"  # three columns when wide, one in a narrow dock
        # The report file is both backends' (TensorRT's form hid it): its own row above the backend's fields.
        ort_fields = [field for name, field in self.fields.items() if name != "output"]
        self.grid = w.GridBox(ort_fields, layout=w.Layout(grid_template_columns=columns))
        # The backend choice (seed: "TensorRT or ONNX Runtime as the inference framework"): TensorRT's pages and
        # its unavailable reason replace the ONNX Runtime form (trt_form.py).
        from dld_jupyter.widgets.designer.trt_form import TrtProfileForm

        self.trt = TrtProfileForm()
        self.trt.box.layout.display = "none"
        self.trt.settings.version.on_change(lambda: self._show_backend())  # another TensorRT: its reason
        self.backend = w.ToggleButtons(options=BACKENDS, value=BACKENDS[0], description="Backend")
        self.backend.observe(lambda _c: self._show_backend(), names="value")
        title = w.HTML(fill(TITLE, "ONNX Runtime", self._model_label()))
        self.show_button = w.Button(description="Show command", icon="terminal", layout=w.Layout(display="none"),
                                    tooltip="the trtexec command line of this TensorRT profile")
        self.show_button.on_click(lambda _b: self.show_command())
        self.command = command_area()
        super().__init__(model, title, [self.backend, self.fields["output"], self.grid, self.trt.box], "Profile",
                         "play", buttons=(self.show_button,), below=(self.command,))
        self.report_area = self.artifacts_area
        self.add_class("dld-profile-panel")
        from dld_jupyter.widgets.designer.trt_versions import follow_target
        from dld_jupyter.widgets.runs.targets import LOCAL, NEW_CONNECTION

        follow_target(self.trt.settings.version, self.target, LOCAL, NEW_CONNECTION)  # a target's TensorRT: its own

    def _model_label(self) -> str:
        path = ModelRef.of(self.model).user_file
        return path if path is not None else "(unsaved model)"

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
            "kernel_records": w.Checkbox(
                value=v["kernel_records"], description="Kernel records (CUPTI)", indent=False, layout=layout,
                tooltip="CUDA: kernels, copies and Tensor Core use of the profiled passes, tied to their nodes",
            ),
            "sampling_ms": num(
                w.BoundedFloatText, "sampling_ms", "Sampling (ms)", "GPU metric sampling interval", v["sampling_ms"]
            ),
            "hide_non_compute": w.Checkbox(
                value=v["hide_non_compute"], description="Hide non-compute operations", indent=False, layout=layout,
                tooltip="GPU: inputs copied to the device once, outputs kept there; passes time the compute alone",
            ),
        }

    def _show_provider(self) -> None:
        """GPU-only settings greyed out and unticked for the CPU provider (they read as if NVML and CUPTI would
        run), given back as they were when a GPU provider is chosen again."""
        cpu = self.fields["provider"].value == "cpu"
        for name in GPU_ONLY:
            field = self.fields[name]
            if cpu and not field.disabled:
                if isinstance(field, w.Checkbox):
                    self._gpu_ticks[name] = bool(field.value)
                    field.value = False
                field.disabled = True
            elif not cpu and field.disabled:
                field.disabled = False
                if name in self._gpu_ticks:
                    field.value = self._gpu_ticks.pop(name)

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
        self.show_button.layout.display = "" if tensorrt else "none"
        if not tensorrt:
            self.command.layout.display = "none"
        self.run_button.disabled = self.refused() is not None  # the reason is shown in the TensorRT box
        self.show_error("")

    def refused(self) -> str | None:
        return self.trt.reason if self.backend.value == "TensorRT" else None

    def spec(self, model: ModelRef | str) -> OrtProfileSpec | TrtProfileSpec:
        """The spec of the chosen backend (`kinds.profile.profile_spec`, as every front door builds it)."""
        if self.backend.value == "TensorRT":
            return self.trt.spec(model, self.fields["output"].value or None)
        spec: OrtProfileSpec = profile_spec(model, "onnxruntime", **self.settings())
        return spec

    def make_spec(self) -> OrtProfileSpec | TrtProfileSpec:
        """The run's spec; a copy of unsaved edits it reads is the run panel's to remove at the end (`model_ref`).
        A document's report goes beside its own file and links back to it."""
        self.model_ref = ModelRef.of(self.model)
        return self.spec(self.model_ref)

    def show_command(self) -> dict[str, Any] | None:
        """TensorRT: the trtexec command line the run stands for (a dry run: no TensorRT needed), copyable."""
        self.show_error("")
        try:
            spec = self.make_spec()
            copied = self.model_ref is not None and not self.model_ref.saved
            if not isinstance(spec, TrtProfileSpec):
                raise SpecError("Show command: the command line is TensorRT's; choose the TensorRT backend")
            data = dry_run(spec)
        except (ActivityError, OSError, ValueError, TypeError) as error:
            self.show_error(f"Cannot show the command: {error}")
            return None
        finally:
            self._release()
        unsaved = "" if not copied else (
            "the designer has unsaved edits: a run profiles a temporary copy of them (the --onnx file above)")
        self.command.value = command_text(data, unsaved)
        self.command.layout.display = ""
        return data

    def done_text(self, result: ActivityResult) -> str:
        return str(result.report_path or super().done_text(result))

    def show_opened(self, opened: list[Opened]) -> None:
        super().show_opened(opened)
        self.viewer = next((entry.shown for entry in opened if entry.name == "report"), None)

    def disable_form(self, running: bool) -> None:
        self.trt.disable(running)
        self.backend.disabled = running
        for field in self.fields.values():
            field.disabled = running


def profile_in_notebook(model: RunInput, run: bool = False, **settings: Any) -> ProfilePanel:
    """The profiling panel for a model path, a Document or a Designer (the Designer's "Profile" button calls this).

    `settings` are OrtProfileSpec options (iterations, warmup, provider, optimize, ...), pre-filled in the form;
    `run=True` starts at once. The report viewer appears in the panel when the run succeeds.
    """
    panel = ProfilePanel(model, **settings)
    if run:
        panel.run()
    return panel
