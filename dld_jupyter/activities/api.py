"""`profile(...)` and `export_engine(...)`: the Python front doors of profiling (returning a Report, the notebook's
`dld.profile`) and of TensorRT engine export (`dld.export_engine`, returning an EngineExport).

Accepts a model path, a Document or a designer (`ModelRef`): a document with unsaved edits is profiled from a
temporary copy removed after the run (kept beside the report with `keep_model=True`); the report names the
document, whose live designer or file its links then open. The specs come from each kind's one builder
(`kinds.profile.profile_spec`, `kinds.export_engine.export_spec`).
TensorRT options are given flat, by the names of `TrtSettings` and `ProfilerSettings` fields (`fp16=True,
iterations=50`), or as whole `settings=` / `profiler=` objects; unknown names raise SpecError listing the known
ones. A document with unsaved edits is exported from a temporary copy, so the engine carries the profiles and
precisions as they are in the designer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, ActivityError, SpecError, UnavailableError
from dld_jupyter.activities.kinds.export_engine import export_spec
from dld_jupyter.activities.kinds.profile import profile_spec
from dld_jupyter.activities.model_ref import ModelLike, ModelRef
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.run import LogCallback, ProgressCallback, Run
from dld_jupyter.activities.runtimes.tensorrt.dry_run import dry_run
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.scheduler import run_activity
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
    model: ModelLike,
    backend: str = "onnxruntime",
    provider: str = "cpu",
    *,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: str | Target | None = None,
    keep_model: bool = False,
    within: Run | None = None,
    **options: Any,
) -> Report:
    """Profile a model (a path, a Document or a designer) and return its Report (also written to `output`, default
    `<model>.dld-report.json` beside the model, or beside the document's own file).

    A document with unsaved edits runs from a temporary copy removed after the run; `keep_model=True` keeps it
    beside the report as `<report stem>.profiled.onnx` (`model.profiled.onnx`, `model-2.profiled.onnx` beside
    `model-2.dld-report.json`).

    `options` are those of OrtProfileSpec: iterations, warmup, optimize, random_inputs, input_folder, batch_size,
    device, output, seed, threads, gpu_metrics, lock_clocks, sampling_ms, kernel_records (CUDA: CUPTI kernels,
    recorded in passes of their own after the profiled ones); with backend="tensorrt", the fields of TrtSettings and
    ProfilerSettings. Unknown ones raise SpecError naming the known ones.
    `target`: a saved SSH target's name, `ssh://user@host:port` or a Target (default: this machine).
    `within`: the run this profile is part of (an analysis's own layer timings): it may use the GPU that run holds.
    Raises UnavailableError for a missing backend/provider or an unreachable target, ActivityFailed for a failed run.
    """
    where = target_named(target) if target is None or isinstance(target, str) else target
    if backend != "tensorrt":
        options["provider"] = provider
    with ModelRef.of(model, keep=keep_model) as ref:  # a temporary copy of unsaved edits goes with the run
        spec = profile_spec(ref, backend, **_trt_on(where, options))
        return _report_of(run_activity(spec, on_progress=on_progress, on_log=on_log, target=where, within=within))


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


def _trt_on(where: Target, options: dict[str, Any]) -> dict[str, Any]:
    """`options` with `trt=` (a TensorRT version or path) chosen on an SSH target there, not here."""
    from dld_jupyter.activities.targets.local import LocalTarget

    if "trt" not in options or isinstance(where, LocalTarget):
        return options  # chosen here (settings.with_options)
    from dld_jupyter.activities.targets.ssh import SshTarget  # asyncssh: only for a remote target

    if not isinstance(where, SshTarget):
        return options
    from dld_jupyter.activities.runtimes.tensorrt.target_installs import choose_on_target

    rest = {key: value for key, value in options.items() if key != "trt"}
    return {**rest, **choose_on_target(where, str(options["trt"])).settings()}


def export_engine(
    model: ModelLike,
    engine: str | None = None,
    *,
    metadata: str | None = None,
    settings: TrtSettings | dict[str, Any] | None = None,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: str | Target | None = None,
    **options: Any,
) -> EngineExport:
    """Build a TensorRT engine (default `<model>.engine` beside the model, or beside the document's own file) with
    the model's profiles and layer precisions; `options` are `TrtSettings` fields; `target` as for `profile` (the
    engine is copied back here). Raises UnavailableError without TensorRT (on the target) or when the target is
    unreachable."""
    where = target_named(target) if target is None or isinstance(target, str) else target
    with ModelRef.of(model) as ref:  # a temporary copy of unsaved edits goes with the export
        spec = export_spec(ref, engine, metadata=metadata, settings=settings, **_trt_on(where, options)).resolved()
        command = dry_run(spec)["trtexec"]["command"]
        result = run_activity(spec, on_progress=on_progress, on_log=on_log, target=where)
    if not (result.ok and "engine" in result.artifacts):
        _raise_for(result, ExportFailed)
    assert spec.engine is not None
    return EngineExport(spec.engine, result.artifacts.get("layer_info"), str(command))
