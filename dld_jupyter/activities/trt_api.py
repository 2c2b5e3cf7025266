"""The Python front door of TensorRT activities: `export_engine(...)` and the TensorRT half of `profile(...)`.

Options are given flat, by the names of `TrtSettings` and `ProfilerSettings` fields (`fp16=True, iterations=50`),
or as whole `settings=` / `profiler=` objects; unknown names raise SpecError listing the known ones. A document
with unsaved edits is exported from a temporary copy, like profiling (`api.model_path`), so the engine carries
the profiles and precisions as they are in the designer.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from dld_jupyter.activities.engine import LogCallback, ProgressCallback, run_activity
from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, ActivityError, SpecError, UnavailableError
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.trt_settings import ProfilerSettings, TrtSettings
from dld_jupyter.activities.trt_spec import TrtBuildSpec, TrtProfileSpec
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report

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
    report: Report  # the engine's layers, precisions, ONNX nodes and device memory (no times)


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


def _raise_for(result: ActivityResult) -> None:
    if result.error_kind == BAD_INPUT:
        raise SpecError(result.error or "bad input")
    if result.error_kind == UNAVAILABLE:
        raise UnavailableError(result.error or "unavailable")
    raise ExportFailed(result)


def export_engine(
    model_or_document: Any,
    engine: str | None = None,
    *,
    metadata: str | None = None,
    settings: TrtSettings | dict[str, Any] | None = None,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    **options: Any,
) -> EngineExport:
    """Build a TensorRT engine (default `<model>.engine` beside the model) with the model's profiles and layer
    precisions; `options` are `TrtSettings` fields. Raises UnavailableError without TensorRT."""
    from pathlib import Path

    from dld_jupyter.activities.model_source import model_path

    parts = _split(options, {"settings": SETTINGS})
    with model_path(model_or_document) as (path, default_report):
        home = Path(default_report).with_name(Path(path).stem + ".onnx")
        target = engine or str(home.with_suffix(".engine"))
        spec = TrtBuildSpec(
            model=path, engine=target, metadata=metadata, settings=_settings(settings, parts["settings"])
        ).resolved()
        result = run_activity(spec, on_progress=on_progress, on_log=on_log)
    if not (result.ok and result.report_path):
        _raise_for(result)
    assert spec.engine is not None and result.report_path is not None
    return EngineExport(spec.engine, spec.metadata, load_report(result.report_path))
