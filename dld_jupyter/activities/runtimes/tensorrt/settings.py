"""TensorRT activity settings: the seed's Common / Tactics / Optimizer pages (`TrtSettings`) and Profiler Settings
(`ProfilerSettings`), as frozen dataclasses that validate on construction.

Shared by both TensorRT activity kinds (`trt_spec`): export an engine, and profile. Optimization profiles and layer
precisions are not settings: they are stored in the model (`document.trt_metadata`) and read from it at run time.
Defaults are TensorRT's own (TF32 on, cuDNN/cuBLAS tactics off since TensorRT 10, native InstanceNorm, builder
optimization level 3), so an untouched dialog builds what `trtexec --onnx=MODEL` builds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec import sampling_problem
from dld_jupyter.activities.spec_fields import check_fields

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

TENSORRT_SOURCES = ("python", "path", "trtexec")  # this env's tensorrt, another installation, a trtexec binary
TYPING_MODES = ("default", "strongly-typed", "obey", "prefer")
REFIT_MODES = ("none", "refit", "strip")  # Not refittable / Refittable (weights included) / (weights stripped)
MAX_OPTIMIZATION_LEVEL = 5
MAX_INT = 2**31 - 1  # TensorRT and trtexec take these settings as int32 (device, streams, batch, passes)
MAX_WORKSPACE_MIB = 1 << 24  # 16 TiB: more than any GPU has; the pool limit is bytes in a 64-bit size

T = TypeVar("T", bound="DataclassInstance")


def _check_fields(obj: DataclassInstance, group: str) -> None:
    """Every field against its annotation (`spec_fields`); numbers must also be finite and integers fit the int32
    TensorRT and trtexec take (2**70 aux streams, a NaN interval were accepted)."""
    check_fields(obj, group)
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise SpecError(f"{group}.{f.name}: must be a finite number, got {value!r}")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise SpecError(f"{group}.{f.name}: must be at most {MAX_INT:,} (int32), got {value:,}")


def from_mapping(cls: type[T], data: Any, group: str) -> T:
    """`cls` from decoded JSON, naming unknown options; lists become tuples."""
    if isinstance(data, cls):
        return data
    if not isinstance(data, dict):
        raise SpecError(f"{group}: expected a JSON object, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SpecError(f"{group}: unknown option(s) {unknown}; known options are {sorted(known)}")
    body = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return cls(**body)


@dataclass(frozen=True)
class TrtSettings:
    """Every setting of the seed's "Exporting a TensorRT Engine" Common, Tactics and Optimizer pages."""

    # Version selection
    tensorrt: str = "python"  # "python": `import tensorrt` here | "path": an installation | "trtexec": a binary
    tensorrt_path: str | None = None  # the folder holding the `tensorrt` package ("path"), or trtexec ("trtexec")
    # Common
    save_metadata: bool = True  # DETAILED profiling verbosity in the engine; False: NONE (no layer information)
    device: int = 0  # CUDA device index
    plugins: tuple[str, ...] = ()  # custom plugin libraries to load
    # Tactics
    typing: str = "default"  # "default" | "strongly-typed" | "obey" | "prefer" (precision constraints)
    tf32: bool = True
    fp16: bool = False
    bf16: bool = False
    int8: bool = False
    fp8: bool = False
    sparsity: bool = False  # examine weights for sparsity
    cudnn_cublas: bool = False  # allow cuDNN / cuBLAS / cuBLASLt tactics (off by default since TensorRT 10)
    native_instancenorm: bool = True  # False: the plugin (cuDNN) InstanceNorm
    # Optimizer
    optimization_level: int = 3  # builder optimization level 0..5
    max_aux_streams: int | None = None  # maximum worker streams; None: TensorRT heuristics, 0: no parallelism
    batch_size: int | None = None  # inferred batch size; None: the model's stored one, if any
    hardware_compatible: bool = False  # Ampere and newer
    workspace_mib: int | None = None  # workspace memory pool limit; None: no limit
    calibration_cache: str | None = None  # INT8 calibration cache file
    refit: str = "none"  # "none" | "refit" | "strip"
    version_compatible: bool = False

    def __post_init__(self) -> None:
        _check_fields(self, "settings")
        if self.tensorrt not in TENSORRT_SOURCES:
            raise SpecError(f"settings.tensorrt: {self.tensorrt!r} is not one of {list(TENSORRT_SOURCES)}")
        if self.tensorrt == "python" and self.tensorrt_path:
            raise SpecError('settings.tensorrt_path: only used with tensorrt "path" or "trtexec"; remove it')
        if self.tensorrt != "python" and not self.tensorrt_path:
            what = "the trtexec binary" if self.tensorrt == "trtexec" else "the folder that holds the tensorrt package"
            raise SpecError(f"settings.tensorrt_path: give {what} (tensorrt is {self.tensorrt!r})")
        if not all(isinstance(p, str) and p for p in self.plugins):
            raise SpecError(f"settings.plugins: expected paths of plugin libraries, got {list(self.plugins)!r}")
        if self.device < 0:
            raise SpecError(f"settings.device: must be 0 or more, got {self.device}")
        if self.typing not in TYPING_MODES:
            raise SpecError(f"settings.typing: {self.typing!r} is not one of {list(TYPING_MODES)}")
        if self.int8 and self.fp8:
            raise SpecError("settings.int8 and settings.fp8: the INT8 and FP8 tactics are exclusive; turn one off")
        if not 0 <= self.optimization_level <= MAX_OPTIMIZATION_LEVEL:
            raise SpecError(
                f"settings.optimization_level: must be 0..{MAX_OPTIMIZATION_LEVEL}, got {self.optimization_level}"
            )
        for name in ("max_aux_streams", "workspace_mib", "batch_size"):
            value = getattr(self, name)
            low = 0 if name == "max_aux_streams" else 1
            if value is not None and value < low:
                raise SpecError(f"settings.{name}: must be {low} or more (or null), got {value}")
        if self.workspace_mib is not None and self.workspace_mib > MAX_WORKSPACE_MIB:
            raise SpecError(
                f"settings.workspace_mib: {self.workspace_mib:,} MiB is more than any GPU has (at most "
                f"{MAX_WORKSPACE_MIB:,} MiB); give the pool limit in MiB, or null for no limit"
            )
        if self.refit not in REFIT_MODES:
            raise SpecError(f"settings.refit: {self.refit!r} is not one of {list(REFIT_MODES)}")
        if self.calibration_cache and not self.int8:
            raise SpecError("settings.calibration_cache: the calibration cache is for INT8 tactics; turn int8 on")

    @property
    def strongly_typed(self) -> bool:
        return self.typing == "strongly-typed"

    @property
    def precision_constraints(self) -> str | None:
        """ "obey" | "prefer" when layer precisions apply, else None (defaults and strongly typed ignore them)."""
        return self.typing if self.typing in ("obey", "prefer") else None

    @classmethod
    def from_dict(cls, data: Any) -> TrtSettings:
        return from_mapping(cls, data, "settings")


@dataclass(frozen=True)
class ProfilerSettings:
    """The seed's Profiler Settings page, plus "use prebuilt engine" from its Common page."""

    iterations: int = 100  # measurement passes (warm-up excluded)
    warmup: int = 10  # passes run before measuring, never reported
    sampling_ms: float = 100.0  # GPU metric sampling interval (GPM needs >= 100 ms; the sampler keeps >= 120 ms)
    gpu_metrics: bool = True
    lock_clocks: bool = False  # lock GPU clocks to base during the run (restored afterwards)
    hide_non_compute: bool = False  # leave host<->device copies out of the passes and the report
    prebuilt_engine: str | None = None  # profile this engine instead of building one (Tactics/Optimizer ignored)
    seed: int = 0  # random input data seed

    def __post_init__(self) -> None:
        _check_fields(self, "profiler")
        if self.iterations < 1:
            raise SpecError(f"profiler.iterations: must be at least 1, got {self.iterations}")
        if self.warmup < 0:
            raise SpecError(f"profiler.warmup: must be 0 or more, got {self.warmup}")
        if (problem := sampling_problem(self.sampling_ms, "profiler.sampling_ms")) is not None:
            raise problem
        if self.prebuilt_engine == "":
            raise SpecError("profiler.prebuilt_engine: give an engine path, or null to build one")

    @classmethod
    def from_dict(cls, data: Any) -> ProfilerSettings:
        return from_mapping(cls, data, "profiler")


# `trt`: an install by version or path (installs.py), which sets `tensorrt` and `tensorrt_path`
SETTINGS_OPTIONS = (*(f.name for f in dataclasses.fields(TrtSettings)), "trt")
PROFILER_OPTIONS = tuple(f.name for f in dataclasses.fields(ProfilerSettings))


def with_options(base: TrtSettings | Mapping[str, Any] | None, options: Mapping[str, Any]) -> TrtSettings:
    """`base` (TrtSettings or its JSON object; None: the defaults) with `options` (TrtSettings fields, and `trt`: a
    version or path of `installs.find_installs`) replaced."""
    settings = TrtSettings.from_dict(base) if base is not None else TrtSettings()
    options = dict(options)
    if "plugins" in options and isinstance(options["plugins"], list):
        options["plugins"] = tuple(options["plugins"])
    choice = options.pop("trt", None)
    if choice is not None:  # found here, in the front door: the worker runs what it names
        from dld_jupyter.activities.runtimes.tensorrt.installs import choose, find_installs

        options.update(choose(str(choice), find_installs()).settings())
    return dataclasses.replace(settings, **options)


def grouped(options: Mapping[str, Any], settings: TrtSettings | Mapping[str, Any] | None = None,
            profiler: ProfilerSettings | Mapping[str, Any] | None = None) -> tuple[TrtSettings, ProfilerSettings]:
    """Flat options (`fp16=True, iterations=50`) split onto `settings` and `profiler` (objects, their JSON objects, or
    None for the defaults); SpecError naming an option that belongs to neither and the known ones."""
    unknown = sorted(set(options) - set(SETTINGS_OPTIONS) - set(PROFILER_OPTIONS))
    if unknown:
        known = sorted({*SETTINGS_OPTIONS, *PROFILER_OPTIONS})
        raise SpecError(f"unknown option(s) {unknown}; known options are {known}")
    base = ProfilerSettings.from_dict(profiler) if profiler is not None else ProfilerSettings()
    profiled = {k: v for k, v in options.items() if k in PROFILER_OPTIONS}
    return (with_options(settings, {k: v for k, v in options.items() if k in SETTINGS_OPTIONS}),
            dataclasses.replace(base, **profiled))
