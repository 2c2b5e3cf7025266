"""What a TensorRT activity would do, without TensorRT: every resolved setting, the model's profiles and layer
precisions, the Polygraphy/TensorRT build plan and the equivalent trtexec command line.

`dld export-engine --dry-run`, `dld profile --backend tensorrt --dry-run` and the dialogs show this; the backend
builds from the same `plan_for`, so what is shown is what runs. The timing cache is per TensorRT version and GPU:
both are looked up without importing tensorrt (package metadata, NVML) and named "unknown" when absent.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

from dld_jupyter.activities.cache import timing_cache_path
from dld_jupyter.activities.gpu.nvml import device_info
from dld_jupyter.activities.runtimes.tensorrt.mapping import (
    BuildPlan,
    TrtexecCommand,
    build_plan,
    export_command,
    profile_command,
)
from dld_jupyter.activities.runtimes.tensorrt.model import ModelTrtAttributes, read_model_attributes
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec, TrtProfileSpec

TrtSpec = TrtBuildSpec | TrtProfileSpec


def installed_tensorrt_version() -> str | None:
    """The version of this environment's `tensorrt` package, read from its metadata (no import)."""
    for name in ("tensorrt", "tensorrt-cu13", "tensorrt-cu12"):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def gpu_name(device: int) -> str | None:
    name = str(device_info(device).get("gpu", ""))
    return None if not name or name.startswith("unavailable") else name


def timing_cache_for(settings: TrtSettings, version: str | None = None, gpu: str | None = None) -> Path:
    trt_version = version or (installed_tensorrt_version() if settings.tensorrt == "python" else None)
    return timing_cache_path(trt_version or "unknown", gpu or gpu_name(settings.device) or "unknown")


def plan_for(spec: TrtSpec, attrs: ModelTrtAttributes, timing_cache: str | None) -> BuildPlan | None:
    """The build plan, or None when a profile uses a prebuilt engine (nothing is built)."""
    if isinstance(spec, TrtProfileSpec) and spec.profiler.prebuilt_engine:
        return None
    save = True if isinstance(spec, TrtProfileSpec) else None  # profiling needs layer information
    return build_plan(spec.settings, attrs, timing_cache, save_metadata=save)


def trtexec_for(spec: TrtSpec, plan: BuildPlan | None) -> TrtexecCommand:
    settings = spec.settings
    binary = settings.tensorrt_path if settings.tensorrt == "trtexec" and settings.tensorrt_path else "trtexec"
    if isinstance(spec, TrtBuildSpec):
        assert plan is not None
        return export_command(settings, plan, spec.model, spec.engine_path(), spec.metadata, binary)
    outputs = str(Path(spec.report_path()).with_suffix("").with_suffix(""))  # <report stem> beside the report
    return profile_command(settings, spec.profiler, plan, spec.model, outputs, binary)


def dry_run(spec: TrtSpec) -> dict[str, Any]:
    """Everything the activity would do, as JSON-ready data (raises SpecError as the run would)."""
    spec = spec.resolved()
    spec.check_inputs()  # as the run would: a prebuilt engine or calibration cache that is not there
    spec.check_outputs()  # a command that would overwrite the model is refused here too
    attrs = read_model_attributes(spec.model)
    cache = str(timing_cache_for(spec.settings))
    plan = plan_for(spec, attrs, cache)
    command = trtexec_for(spec, plan)
    data: dict[str, Any] = {
        "kind": spec.KIND,
        "spec": spec.to_dict(),
        "model": {
            "inputs": attrs.inputs,
            "optimization_profiles": {name: p.to_json() for name, p in attrs.profiles.items()},
            "inferred_batch_size": attrs.inferred_batch,
            "layer_precisions": attrs.precisions,
        },
        "timing_cache": cache,
        "build": plan.to_json() if plan is not None else None,
        "trtexec": {"argv": command.argv, "command": command.text(), "notes": command.notes},
    }
    if isinstance(spec, TrtBuildSpec):
        data["engine"] = spec.engine_path()
        data["metadata"] = spec.metadata
    data["report"] = None if isinstance(spec, TrtBuildSpec) else spec.report_path()  # an export measures nothing
    return data
