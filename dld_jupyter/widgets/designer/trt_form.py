"""The TensorRT settings pages as ipywidgets forms (seed 000 "Exporting a TensorRT Engine" Common / Tactics /
Optimizer, "Profiling with TensorRT" Profiler Settings), shared by the Export TensorRT Engine panel and the Profile
panel's TensorRT backend so both show every option the same way.

Each form reads back into `TrtSettings` / `ProfilerSettings` keyword arguments; the dataclasses validate (INT8 and
FP8 exclusive, paths required by the version source...) and their SpecError text is what the panel shows. Whether
TensorRT can run here is the runtime's own answer (`available`), never guessed.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from dld_jupyter.activities.runtimes.tensorrt.settings import MAX_OPTIMIZATION_LEVEL, ProfilerSettings, TrtSettings
from dld_jupyter.formats.html_text import bold, fill
from dld_jupyter.widgets.designer.trt_versions import TrtVersionChoice

if TYPE_CHECKING:
    from dld_jupyter.activities.model_ref import ModelRef
    from dld_jupyter.activities.runtimes.tensorrt.spec import TrtProfileSpec

STYLE = {"description_width": "170px"}


def row() -> w.Layout:
    """A field's layout: one per widget (a Layout shared by widgets is closed under the others, widgets/closing.py)."""
    return w.Layout(width="380px")


TYPING = {"TensorRT defaults": "default", "Strongly typed": "strongly-typed", "Obey precision constraints": "obey",
          "Prefer precision constraints": "prefer"}
REFIT = {"Not refittable": "none", "Refittable (weights included)": "refit", "Refittable (weights stripped)": "strip"}


def _label(choices: dict[str, str], value: str) -> str:
    return next(label for label, v in choices.items() if v == value)


def _check(name: str, label: str, value: bool, tip: str = "") -> w.Checkbox:
    return w.Checkbox(value=value, description=label, indent=False, layout=row(), tooltip=tip or label)


def _text(label: str, value: str | None, placeholder: str) -> w.Text:
    return w.Text(value=value or "", description=label, placeholder=placeholder, style=STYLE, layout=row())


def _optional_int(label: str, value: int | None, tip: str) -> w.Text:
    """Blank is meaningful (TensorRT heuristics / no limit): a text box, parsed on read."""
    return w.Text(value="" if value is None else str(value), description=label, placeholder="(blank: default)",
                  tooltip=tip, style=STYLE, layout=row())


def page(title: str, fields: dict[str, w.Widget]) -> w.VBox:
    box = w.VBox([w.HTML(bold(title)), *fields.values()])
    box.add_class("dld-trt-page")
    return box


class TrtSettingsForm:
    """Common / Tactics / Optimizer pages of `TrtSettings` (every field)."""

    def __init__(self, settings: TrtSettings | None = None) -> None:
        v = settings or TrtSettings()
        self.version = TrtVersionChoice(v)  # the installs found, each with its version, and custom paths
        self.common: dict[str, w.Widget] = {
            "save_metadata": _check("save_metadata", "Save engine metadata (detailed)", v.save_metadata),
            "device": w.BoundedIntText(value=v.device, min=0, max=1023, description="Device index", style=STYLE,
                                       layout=row()),
            "plugins": _text("Custom plugins", ", ".join(v.plugins), "plugin libraries, comma separated"),
        }
        self.tactics: dict[str, w.Widget] = {
            "typing": w.Dropdown(options=list(TYPING), value=_label(TYPING, v.typing), description="Typing mode",
                                 style=STYLE, layout=row()),
            "tf32": _check("tf32", "Allow TF32 tactics", v.tf32),
            "fp16": _check("fp16", "Allow FP16 tactics", v.fp16),
            "bf16": _check("bf16", "Allow BF16 tactics", v.bf16),
            "int8": _check("int8", "Allow INT8 tactics", v.int8, "exclusive with FP8"),
            "fp8": _check("fp8", "Allow FP8 tactics", v.fp8, "exclusive with INT8"),
            "sparsity": _check("sparsity", "Examine weights for sparsity", v.sparsity),
            "cudnn_cublas": _check("cudnn_cublas", "Allow cuDNN and cuBLAS tactics", v.cudnn_cublas),
            "native_instancenorm": _check("native_instancenorm", "Native instance norm", v.native_instancenorm),
        }
        self.optimizer: dict[str, w.Widget] = {
            "optimization_level": w.BoundedIntText(value=v.optimization_level, min=0, max=MAX_OPTIMIZATION_LEVEL,
                                                   description="Builder optimization level", style=STYLE,
                                                   layout=row()),
            "max_aux_streams": _optional_int("Maximum worker streams", v.max_aux_streams,
                                             "blank: TensorRT heuristics; 0: no stream parallelism"),
            "batch_size": _optional_int("Inferred batch size", v.batch_size,
                                        "blank: the model's stored one, if any"),
            "hardware_compatible": _check("hardware_compatible", "Hardware compatible engine (Ampere+)",
                                          v.hardware_compatible),
            "workspace_mib": _optional_int("Workspace pool limit (MiB)", v.workspace_mib, "blank: no limit"),
            "calibration_cache": _text("INT8 calibration cache", v.calibration_cache, "(blank: no calibration)"),
            "refit": w.Dropdown(options=list(REFIT), value=_label(REFIT, v.refit), description="Weights refitting",
                                style=STYLE, layout=row()),
            "version_compatible": _check("version_compatible", "Version compatible engine", v.version_compatible),
        }
        # INT8 and FP8 are exclusive (seed): ticking one clears the other.
        self.tactics["int8"].observe(lambda c: self._exclusive(c, "fp8"), names="value")
        self.tactics["fp8"].observe(lambda c: self._exclusive(c, "int8"), names="value")

    def _exclusive(self, change: dict[str, Any], other: str) -> None:
        if change["new"]:
            self.tactics[other].value = False

    @property
    def fields(self) -> dict[str, w.Widget]:
        """Every setting's widget (the version choice: its dropdown and custom path)."""
        version = {"tensorrt": self.version.dropdown, "tensorrt_path": self.version.path}
        return {**version, **self.common, **self.tactics, **self.optimizer}

    def pages(self) -> list[w.VBox]:
        common = page("Common", self.common)
        common.children = (common.children[0], self.version.box, *common.children[1:])
        return [common, page("Tactics", self.tactics), page("Optimizer", self.optimizer)]

    def settings(self) -> TrtSettings:
        """The form as TrtSettings; ValueError (SpecError) names the option that is wrong."""
        f = {name: field.value for name, field in self.fields.items()}
        f.update(self.version.settings())  # an install's source and path, or the custom path checked
        f["typing"], f["refit"] = TYPING[f["typing"]], REFIT[f["refit"]]
        f["plugins"] = tuple(p.strip() for p in f["plugins"].split(",") if p.strip())
        f["calibration_cache"] = f["calibration_cache"].strip() or None
        for name in ("max_aux_streams", "batch_size", "workspace_mib"):
            text = f[name].strip()
            if text and not text.lstrip("-").isdigit():
                raise ValueError(f"settings.{name}: {text!r} is not a whole number (leave it blank for the default)")
            f[name] = int(text) if text else None
        return TrtSettings(**f)

    def disable(self, disabled: bool) -> None:
        self.version.disable(disabled)
        for field in self.fields.values():
            field.disabled = disabled


class ProfilerForm:
    """The Profiler Settings page (plus "use prebuilt engine" of the Common page)."""

    def __init__(self, profiler: ProfilerSettings | None = None) -> None:
        v = profiler or ProfilerSettings()
        self.fields: dict[str, w.Widget] = {
            "iterations": w.BoundedIntText(value=v.iterations, min=1, max=10**6, description="Measurement passes",
                                           style=STYLE, layout=row()),
            "warmup": w.BoundedIntText(value=v.warmup, min=0, max=10**6, description="Warm-up passes", style=STYLE,
                                       layout=row()),
            "sampling_ms": w.BoundedFloatText(value=v.sampling_ms, min=1.0, max=10**6, description="Sampling rate (ms)",
                                              style=STYLE, layout=row()),
            "gpu_metrics": _check("gpu_metrics", "GPU metrics (NVML)", v.gpu_metrics),
            "lock_clocks": _check("lock_clocks", "Lock clocks to base", v.lock_clocks),
            "hide_non_compute": _check("hide_non_compute", "Hide non-compute operations", v.hide_non_compute),
            "prebuilt_engine": _text("Use prebuilt engine", v.prebuilt_engine, "(blank: build one)"),
            "seed": w.BoundedIntText(value=v.seed, min=0, max=2**31 - 1, description="Random seed", style=STYLE,
                                     layout=row()),
        }

    def profiler(self) -> ProfilerSettings:
        f = {name: field.value for name, field in self.fields.items()}
        f["prebuilt_engine"] = f["prebuilt_engine"].strip() or None
        return ProfilerSettings(**f)

    def pages(self) -> list[w.VBox]:
        return [page("Profiler Settings", self.fields)]


def unavailable_html(reason: str | None) -> str:
    """The backend's own reason, shown in the dialog, or nothing when TensorRT can run."""
    if reason is None:
        return ""
    return fill('<div class="dld-trt-unavailable" style="color:#b45309"><b>unavailable:</b> {}</div>', reason)


def command_area() -> w.Textarea:
    """Where "Show command" puts the trtexec command line: enabled, so the text can be selected and copied (a
    disabled textarea cannot be), hidden until shown."""
    area = w.Textarea(value="", layout=w.Layout(width="100%", height="120px", display="none"),
                      tooltip="the equivalent trtexec command line: select it and copy")
    area.add_class("dld-trt-command")
    return area


def command_text(data: dict[str, Any], extra: str = "") -> str:
    """A dry run (`tensorrt.dry_run`) as the command area shows it: the command, its notes, `extra` notes, and
    every resolved setting."""
    import json

    notes = "".join(f"\n# {note}" for note in [*data["trtexec"]["notes"], *([extra] if extra else [])])
    settings = json.dumps(data["spec"]["settings"], indent=1, sort_keys=True)
    return f"{data['trtexec']['command']}{notes}\n\n# resolved settings\n{settings}"


def settings_names() -> list[str]:
    return [f.name for f in dataclasses.fields(TrtSettings)]


class TrtProfileForm:
    """What the Profile panel shows for the TensorRT backend: the three settings pages, Profiler Settings and, when
    TensorRT cannot run here, the backend's reason (the panel then refuses to start)."""

    def __init__(self) -> None:
        self.settings = TrtSettingsForm()
        self.profiler = ProfilerForm()
        self.reason = self.settings.version.reason()
        self.unavailable = w.HTML(unavailable_html(self.reason))
        self.box = w.VBox([w.HBox([*self.settings.pages(), *self.profiler.pages()],
                                  layout=w.Layout(flex_flow="row wrap")), self.unavailable])
        self.box.add_class("dld-trt-profile-settings")
        self.settings.version.on_change(self._chosen)  # before the panel's listener: it reads the reason

    def _chosen(self) -> None:
        self.reason = self.settings.version.reason()
        self.unavailable.value = unavailable_html(self.reason)

    def spec(self, model: ModelRef | str, output: str | None) -> TrtProfileSpec:
        """The TensorRT profile spec of these pages (`kinds.profile.profile_spec`, as every front door builds it)."""
        from dld_jupyter.activities.kinds.profile import profile_spec

        return profile_spec(model, "tensorrt", output=output, settings=self.settings.settings(),
                            profiler=self.profiler.profiler())

    def disable(self, disabled: bool) -> None:
        self.settings.disable(disabled)
        for field in self.profiler.fields.values():
            field.disabled = disabled
