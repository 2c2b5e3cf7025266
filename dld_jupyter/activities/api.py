"""`profile(...)` and `export_engine(...)`: the Python front doors of profiling (returning a Report, the notebook's
`dld.profile`) and of TensorRT engine export (`dld.export_engine`, returning an EngineExport).

Accepts a model path or a document-like object (see `model_source`): a document with unsaved edits is profiled
from a temporary copy removed after the run (kept beside the report with `keep_model=True`); the report names the
document, whose live designer or file its links then open.
TensorRT options are given flat, by the names of `TrtSettings` and `ProfilerSettings` fields (`fp16=True,
iterations=50`), or as whole `settings=` / `profiler=` objects; unknown names raise SpecError listing the known
ones. A document with unsaved edits is exported from a temporary copy, so the engine carries the profiles and
precisions as they are in the designer.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NoReturn

from dld_jupyter.activities.engine import LogCallback, ProgressCallback, run_activity
from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, ActivityError, SpecError, UnavailableError
from dld_jupyter.activities.model_source import profiled_source, release_copy
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.runtimes import runtime_named
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings, TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec, TrtProfileSpec
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.choose import target_named
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report


class ActivityFailed(ActivityError, RuntimeError):
    """A profile run failed, crashed or was cancelled; `.result` holds the status, error and logs."""

    def __init__(self, result: ActivityResult) -> None:
        super().__init__(f"profiling {result.status.value}: {result.error}")
        self.result = result


def profile(
    model_or_document: Any,
    backend: str = "onnxruntime",
    provider: str = "cpu",
    *,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: str | Target | None = None,
    keep_model: bool = False,
    **options: Any,
) -> Report:
    """Profile a model and return its Report (also written to `output`, default `<model>.dld-report.json`).

    A document with unsaved edits runs from a temporary copy removed after the run; `keep_model=True` keeps it
    beside the report as `<model>.profiled.onnx`.

    `options` are those of OrtProfileSpec: iterations, warmup, optimize, random_inputs, input_folder, batch_size,
    device, output, seed, threads, gpu_metrics, lock_clocks, sampling_ms, kernel_records (CUDA: CUPTI kernels,
    recorded in passes of their own after the profiled ones); with backend="tensorrt", the fields of TrtSettings and
    ProfilerSettings. Unknown ones raise SpecError naming the known ones.
    `target`: a saved SSH target's name, `ssh://user@host:port` or a Target (default: this machine).
    Raises UnavailableError for a missing backend/provider or an unreachable target, ActivityFailed for a failed run.
    """
    where = target_named(target) if target is None or isinstance(target, str) else target
    runtime_named(backend)  # UnavailableError naming the registered runtimes
    if backend != "tensorrt":
        known = set(OrtProfileSpec.__dataclass_fields__) - {"model", "provider", "source_document"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise SpecError(f"profile: unknown option(s) {unknown}; known options are {sorted(known)}")
    path, default_output, document = profiled_source(model_or_document, keep=keep_model)
    try:
        options.setdefault("output", default_output)  # beside the document's file
        if backend == "tensorrt":  # options: TrtSettings / ProfilerSettings fields
            spec: ActivitySpec = tensorrt_profile_spec(path, options)
        else:
            spec = OrtProfileSpec(model=path, provider=provider, source_document=document, **options)
        return _report_of(run_activity(spec, on_progress=on_progress, on_log=on_log, target=where))
    finally:
        release_copy(path)  # a temporary copy of unsaved edits only; a kept one or the user's file stays


def _report_of(result: ActivityResult) -> Report:
    if result.ok and result.report_path:
        return load_report(result.report_path)
    _raise_for(result, ActivityFailed)


def _raise_for(result: ActivityResult, failed: type[ActivityFailed] | type[ExportFailed]) -> NoReturn:
    """The error a failed run raises: SpecError / UnavailableError by its kind, else `failed` holding the result."""
    if result.error_kind == BAD_INPUT:
        raise SpecError(result.error or "bad input")
    if result.error_kind == UNAVAILABLE:
        raise UnavailableError(result.error or "unavailable")
    raise failed(result)


SETTINGS = {f.name for f in dataclasses.fields(TrtSettings)}
PROFILER = {f.name for f in dataclasses.fields(ProfilerSettings)}


class ExportFailed(ActivityError, RuntimeError):
    """An export failed, crashed or was cancelled; `.result` holds the status, error and logs."""

    def __init__(self, result: ActivityResult) -> None:
        super().__init__(f"export {result.status.value}: {result.error}")
        self.result = result


@dataclass(frozen=True)
class EngineExport:
    engine: str  # the engine file
    metadata: str | None  # the inspector's .trt.json, when asked for
    trtexec: str  # the equivalent trtexec command line (no report: an export measures nothing)


def _split(options: dict[str, Any], groups: dict[str, set[str]]) -> dict[str, dict[str, Any]]:
    known = set().union(*groups.values())
    unknown = sorted(set(options) - known)
    if unknown:
        raise SpecError(f"unknown option(s) {unknown}; known options are {sorted(known)}")
    return {group: {k: v for k, v in options.items() if k in names} for group, names in groups.items()}


def _settings(base: TrtSettings | dict[str, Any] | None, flat: dict[str, Any]) -> TrtSettings:
    settings = TrtSettings.from_dict(base) if base is not None else TrtSettings()
    if "plugins" in flat:
        flat = {**flat, "plugins": tuple(flat["plugins"])}
    return dataclasses.replace(settings, **flat)


def tensorrt_profile_spec(model: str, options: dict[str, Any]) -> TrtProfileSpec:
    """The profile spec of `profile(model, backend="tensorrt", **options)`."""
    options = dict(options)
    settings, profiler, output = (
        options.pop("settings", None),
        options.pop("profiler", None),
        options.pop("output", None),
    )
    parts = _split(options, {"settings": SETTINGS, "profiler": PROFILER})
    base = ProfilerSettings.from_dict(profiler) if profiler is not None else ProfilerSettings()
    return TrtProfileSpec(
        model=model,
        output=output,
        settings=_settings(settings, parts["settings"]),
        profiler=dataclasses.replace(base, **parts["profiler"]),
    )


def export_engine(
    model_or_document: Any,
    engine: str | None = None,
    *,
    metadata: str | None = None,
    settings: TrtSettings | dict[str, Any] | None = None,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: str | Target | None = None,
    **options: Any,
) -> EngineExport:
    """Build a TensorRT engine (default `<model>.engine` beside the model) with the model's profiles and layer
    precisions; `options` are `TrtSettings` fields; `target` as for `profile` (the engine is copied back here).
    Raises UnavailableError without TensorRT (on the target) or when the target is unreachable."""
    from pathlib import Path

    from dld_jupyter.activities.model_source import model_path

    parts = _split(options, {"settings": SETTINGS})
    with model_path(model_or_document) as (path, default_report):
        home = Path(default_report).with_name(Path(path).stem + ".onnx")
        engine_path = engine or str(home.with_suffix(".engine"))
        spec = TrtBuildSpec(
            model=path, engine=engine_path, metadata=metadata, settings=_settings(settings, parts["settings"])
        ).resolved()
        command = dry_run(spec)["trtexec"]["command"]
        where = target_named(target) if target is None or isinstance(target, str) else target
        result = run_activity(spec, on_progress=on_progress, on_log=on_log, target=where)
    if not (result.ok and "engine" in result.artifacts):
        _raise_for(result, ExportFailed)
    assert spec.engine is not None
    return EngineExport(spec.engine, result.artifacts.get("layer_info"), str(command))
