"""`profile(...)`: the Python front door of profiling, returning a Report (the notebook's `dld.profile`).

Accepts a model path or a document-like object (see `model_source`): a document with unsaved edits is profiled
from a copy kept beside its report, so the report's links keep working, and the report names the document too.
"""

from __future__ import annotations

from typing import Any

from dld_jupyter.activities.backends import backend_named
from dld_jupyter.activities.engine import LogCallback, ProgressCallback, run_activity
from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, ActivityError, SpecError, UnavailableError
from dld_jupyter.activities.model_source import profiled_source
from dld_jupyter.activities.ort_spec import OrtProfileSpec
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.spec import ActivitySpec
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
    **options: Any,
) -> Report:
    """Profile a model and return its Report (also written to `output`, default `<model>.dld-report.json`).

    `options` are those of OrtProfileSpec: iterations, warmup, optimize, random_inputs, input_folder, batch_size,
    device, output, seed, threads, gpu_metrics, lock_clocks, sampling_ms; with backend="tensorrt", the fields of
    TrtSettings and ProfilerSettings (activities.trt_api). Unknown ones raise SpecError naming the known ones.
    Raises UnavailableError for a missing backend/provider, ActivityFailed for a failed run.
    """
    backend_named(backend)  # UnavailableError naming the registered backends
    if backend == "tensorrt":  # options: TrtSettings / ProfilerSettings fields (see activities.trt_api)
        from dld_jupyter.activities.trt_api import tensorrt_profile_spec

        path, default_output, _document = profiled_source(model_or_document)
        options.setdefault("output", default_output)
        spec: ActivitySpec = tensorrt_profile_spec(path, options)
        return _report_of(run_activity(spec, on_progress=on_progress, on_log=on_log))
    known = set(OrtProfileSpec.__dataclass_fields__) - {"model", "provider", "source_document"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise SpecError(f"profile: unknown option(s) {unknown}; known options are {sorted(known)}")
    path, default_output, document = profiled_source(model_or_document)
    options.setdefault("output", default_output)  # beside the document's file
    spec = OrtProfileSpec(model=path, provider=provider, source_document=document, **options)
    return _report_of(run_activity(spec, on_progress=on_progress, on_log=on_log))


def _report_of(result: ActivityResult) -> Report:
    if result.ok and result.report_path:
        return load_report(result.report_path)
    if result.error_kind == BAD_INPUT:
        raise SpecError(result.error or "bad input")
    if result.error_kind == UNAVAILABLE:
        raise UnavailableError(result.error or "unavailable")
    raise ActivityFailed(result)
