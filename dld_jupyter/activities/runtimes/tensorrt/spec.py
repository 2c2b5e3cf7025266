"""The two TensorRT activity kinds: export an engine (`TrtBuildSpec`) and profile (`TrtProfileSpec`).

Both carry `TrtSettings` (Common / Tactics / Optimizer pages) as `settings`; the profile adds `ProfilerSettings`
as `profiler`. Their JSON nests those groups, so a dialog page is one object. An export writes its engine and
layer information and no report: it measures nothing (a measured report comes from profiling the engine).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from dld_jupyter.activities.command_line import Args, CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings, TrtSettings
from dld_jupyter.activities.spec import ActivitySpec, Measurement, default_report_path
from dld_jupyter.activities.spec_fields import check_fields

S = TypeVar("S", bound="_TrtSpec")
ENGINE_SUFFIX = ".engine"
METADATA_SUFFIX = ".trt.json"
BUILD_REPORT_SUFFIX = ".build.dld-report.json"


def _abs(path: str | None) -> str | None:
    return os.path.abspath(path) if path else path


@dataclass(frozen=True)
class _TrtSpec(ActivitySpec):
    model: str
    settings: TrtSettings = field(default_factory=TrtSettings)
    output: str | None = None  # report path (an export writes none: there it is only the engine's staging slot)

    @classmethod
    def from_dict(cls: type[S], data: dict[str, Any]) -> S:
        if not isinstance(data, dict):
            raise SpecError(f"spec: expected a JSON object, got {type(data).__name__}")
        body = dict(data)
        body["settings"] = TrtSettings.from_dict(body.get("settings", {}))
        if "profiler" in body:
            body["profiler"] = ProfilerSettings.from_dict(body["profiler"])
        return super().from_dict(body)

    def _check_common(self) -> None:
        check_fields(self)  # every field against its annotation; the settings groups checked themselves
        if not self.model:
            raise SpecError("model: a model path is required")

    def runtime_settings(self) -> TrtSettings:
        return self.settings

    def device_key(self) -> str:
        return f"cuda:{self.settings.device}"

    def with_output(self: S, output: str) -> S:
        return dataclasses.replace(self, output=output)

    def input_paths(self) -> dict[str, str | None]:
        return {"calibration cache": self.settings.calibration_cache}

    def _settings_args(self, args: Args) -> Args:
        """The TensorRT settings as `dld export-engine` and `dld profile --backend tensorrt` take them."""
        t = self.settings
        args.option("--trt-source", t.tensorrt, "python").option("--trt-path", t.tensorrt_path)
        args.switch("--save-metadata", t.save_metadata, True).option("--device", t.device, 0)
        args.repeat("--plugin", t.plugins).option("--typing", t.typing, "default").switch("--tf32", t.tf32, True)
        for name in ("fp16", "bf16", "int8", "fp8", "sparsity", "hardware_compatible", "version_compatible"):
            args.flag("--" + name.replace("_", "-"), getattr(t, name))
        args.flag("--cudnn-cublas", t.cudnn_cublas).switch("--native-instancenorm", t.native_instancenorm, True)
        args.option("--optimization-level", t.optimization_level, 3).option("--max-aux-streams", t.max_aux_streams)
        args.option("--batch-size", t.batch_size).option("--workspace-mib", t.workspace_mib)
        return args.option("--calibration-cache", t.calibration_cache).option("--refit", t.refit, "none")


@dataclass(frozen=True)
class TrtBuildSpec(_TrtSpec):
    """Export an ONNX model to a TensorRT engine (seed 000 "Exporting a TensorRT Engine")."""

    engine: str | None = None  # engine output; None: `<model stem>.engine` beside the model
    metadata: str | None = None  # IEngineInspector JSON output (`.trt.json`); None: none written
    open_metadata: bool = False  # open the metadata as an engine graph after export (front doors act on it)

    KIND: ClassVar[str] = "tensorrt-build"
    RUNTIME: ClassVar[str] = "tensorrt"
    ACTIVITY: ClassVar[str] = "export_engine"

    def __post_init__(self) -> None:
        self._check_common()
        for name in ("engine", "metadata"):
            if getattr(self, name) == "":
                raise SpecError(f"{name}: expected a file path or null, got ''")
        if self.open_metadata and not self.metadata:
            raise SpecError("open_metadata: needs a metadata output path (metadata)")
        if self.metadata and not self.settings.save_metadata:
            raise SpecError(
                "metadata: the engine inspector needs layer information; turn settings.save_metadata on "
                "or give no metadata path"
            )

    def engine_path(self) -> str:
        return self.engine or str(Path(self.model).with_suffix(ENGINE_SUFFIX))

    def report_path(self) -> str:
        """Only the slot the engine stages every spec's report in: an export writes no report there."""
        if self.output:
            return self.output
        engine = Path(self.engine_path())
        return str(engine.with_name(engine.stem + BUILD_REPORT_SUFFIX))

    def output_paths(self) -> dict[str, str | None]:
        return {"engine": self.engine_path(), "metadata": self.metadata}  # no report: an export measures nothing

    def command_line(self) -> CommandLine:
        """`dld export-engine MODEL -o ENGINE [--metadata M] …`."""
        args = self._settings_args(Args("dld", "export-engine", self.model, "-o", self.engine_path()))
        args.option("--metadata", self.metadata)
        if (note := self.copy_note()) is not None:
            args.unsaid(note)
        if self.open_metadata:
            args.unsaid("the layer information was opened as an engine graph afterwards: `dld engine show METADATA` "
                        "lists its layers, JupyterLab opens the file as a graph")
        return args.done()

    def resolved(self) -> TrtBuildSpec:
        return dataclasses.replace(
            self,
            model=os.path.abspath(self.model),
            engine=os.path.abspath(self.engine_path()),
            metadata=_abs(self.metadata),
            output=_abs(self.output),
            settings=_resolved_settings(self.settings),
        )


@dataclass(frozen=True)
class TrtProfileSpec(_TrtSpec):
    """Profile an ONNX model with TensorRT (seed 000 "Profiling with TensorRT")."""

    profiler: ProfilerSettings = field(default_factory=ProfilerSettings)

    KIND: ClassVar[str] = "tensorrt-profile"
    RUNTIME: ClassVar[str] = "tensorrt"
    ACTIVITY: ClassVar[str] = "profile"

    def __post_init__(self) -> None:
        self._check_common()

    def report_path(self) -> str:
        return self.output or default_report_path(self.model)

    def input_paths(self) -> dict[str, str | None]:
        return {**super().input_paths(), "prebuilt engine": self.profiler.prebuilt_engine}

    def measurement(self) -> Measurement:
        p = self.profiler
        return Measurement(p.warmup, p.iterations, self.settings.device, p.lock_clocks, p.gpu_metrics, p.sampling_ms)

    def command_line(self) -> CommandLine:
        """`dld profile MODEL -o REPORT --backend tensorrt …`."""
        args = self._settings_args(Args("dld", "profile", self.model, "-o", self.report_path(), "--backend",
                                        "tensorrt"))
        p = self.profiler
        args.option("--iterations", p.iterations, 100).option("--warmup", p.warmup, 10)
        args.option("--sampling-ms", p.sampling_ms, 100.0).switch("--gpu-metrics", p.gpu_metrics, True)
        args.flag("--lock-clocks", p.lock_clocks).flag("--hide-non-compute", p.hide_non_compute)
        args.option("--prebuilt-engine", p.prebuilt_engine).option("--seed", p.seed, 0)
        if (note := self.copy_note()) is not None:
            args.unsaid(note)
        return args.done()

    def resolved(self) -> TrtProfileSpec:
        engine = _abs(self.profiler.prebuilt_engine)
        return dataclasses.replace(
            self,
            model=os.path.abspath(self.model),
            output=os.path.abspath(self.report_path()),
            settings=_resolved_settings(self.settings),
            profiler=dataclasses.replace(self.profiler, prebuilt_engine=engine),
        )


def _resolved_settings(settings: TrtSettings) -> TrtSettings:
    return dataclasses.replace(
        settings,
        tensorrt_path=_abs(settings.tensorrt_path),
        plugins=tuple(os.path.abspath(p) for p in settings.plugins),
        calibration_cache=_abs(settings.calibration_cache),
    )
