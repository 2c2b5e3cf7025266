"""`profile(...)`: the Python front door of profiling, returning a Report (the notebook's `dld.profile`).

Accepts a model path or a document-like object (`.path`, `.save(path)` or `.save_copy(path)`, optionally `.dirty`),
duck-typed so this layer does not import the document layer: an unsaved document is saved to a temporary copy
first (with `save_copy` when it has one, else `save` and its `.path` restored).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dld_jupyter.activities.backends import backend_named
from dld_jupyter.activities.engine import LogCallback, ProgressCallback, run_activity
from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, ActivityError, SpecError, UnavailableError
from dld_jupyter.activities.ort_spec import OrtProfileSpec
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.spec import ActivitySpec, default_report_path
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.model import Report


class ActivityFailed(ActivityError, RuntimeError):
    """A profile run failed, crashed or was cancelled; `.result` holds the status, error and logs."""

    def __init__(self, result: ActivityResult) -> None:
        super().__init__(f"profiling {result.status.value}: {result.error}")
        self.result = result


@contextmanager
def model_path(model_or_document: Any) -> Iterator[tuple[str, str]]:
    """(path to profile, default report path): the path itself, a document's file, or a temporary copy."""
    if isinstance(model_or_document, (str, os.PathLike)):
        path = os.fspath(model_or_document)
        yield path, default_report_path(path)
        return
    path = getattr(model_or_document, "path", None)
    save_copy = getattr(model_or_document, "save_copy", None)
    save = getattr(model_or_document, "save", None)
    if not callable(save_copy) and not callable(save):
        raise SpecError(
            f"profile: expected a model path or a document with .path and .save(), got "
            f"{type(model_or_document).__name__}"
        )
    home = os.fspath(path) if path else os.path.join(os.getcwd(), f"{getattr(model_or_document, 'name', 'model')}.onnx")
    if path and not getattr(model_or_document, "dirty", False) and os.path.isfile(home):
        yield home, default_report_path(home)
        return
    # Unsaved changes are profiled as they are, from a temporary copy; the user's file is not touched.
    with tempfile.TemporaryDirectory(prefix="dld-profile-") as folder:
        copy = os.path.join(folder, os.path.basename(home))
        if callable(save_copy):
            save_copy(copy)
        else:
            assert callable(save)
            save(copy)
            # Document.save(path) is "save as": point the document back at its own file.
            with contextlib.suppress(AttributeError):
                model_or_document.path = path
        yield copy, default_report_path(home)


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

        with model_path(model_or_document) as (path, default_output):
            options.setdefault("output", default_output)
            spec: ActivitySpec = tensorrt_profile_spec(path, options)
            result = run_activity(spec, on_progress=on_progress, on_log=on_log)
        return _report_of(result)
    known = set(OrtProfileSpec.__dataclass_fields__) - {"model", "provider"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise SpecError(f"profile: unknown option(s) {unknown}; known options are {sorted(known)}")
    with model_path(model_or_document) as (path, default_output):
        options.setdefault("output", default_output)  # beside the document's file, never in a temp folder
        spec = OrtProfileSpec(model=path, provider=provider, **options)
        result = run_activity(spec, on_progress=on_progress, on_log=on_log)
    return _report_of(result)


def _report_of(result: ActivityResult) -> Report:
    if result.ok and result.report_path:
        return load_report(result.report_path)
    if result.error_kind == BAD_INPUT:
        raise SpecError(result.error or "bad input")
    if result.error_kind == UNAVAILABLE:
        raise UnavailableError(result.error or "unavailable")
    raise ActivityFailed(result)
