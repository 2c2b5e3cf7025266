"""`profile(...)`: the Python front door of profiling, returning a Report (the notebook's `dld.profile`).

Accepts a model path or a document-like object (`.path`, `.save()`, optionally `.dirty`), duck-typed so this
layer does not import the document layer: an unsaved document is saved to a temporary copy first.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dld_jupyter.activities.engine import LogCallback, ProgressCallback, run_activity
from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, ActivityError, SpecError, UnavailableError
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.spec import OrtProfileSpec
from dld_jupyter.reports.io import load_report
from dld_jupyter.reports.model import Report

BACKENDS = ("onnxruntime",)


class ActivityFailed(ActivityError, RuntimeError):
    """A profile run failed, crashed or was cancelled; `.result` holds the status, error and logs."""

    def __init__(self, result: ActivityResult) -> None:
        super().__init__(f"profiling {result.status.value}: {result.error}")
        self.result = result


@contextmanager
def model_path(model_or_document: Any) -> Iterator[str]:
    """The path to profile: the path itself, a document's file, or a temporary copy of an unsaved document."""
    if isinstance(model_or_document, (str, os.PathLike)):
        yield os.fspath(model_or_document)
        return
    path = getattr(model_or_document, "path", None)
    save = getattr(model_or_document, "save", None)
    if not callable(save):
        raise SpecError(
            f"profile: expected a model path or a document with .path and .save(), got "
            f"{type(model_or_document).__name__}"
        )
    if path and not getattr(model_or_document, "dirty", False) and os.path.isfile(os.fspath(path)):
        yield os.fspath(path)
        return
    # Unsaved changes are profiled as they are, without touching the user's file.
    stem = Path(os.fspath(path)).stem if path else "document"
    with tempfile.TemporaryDirectory(prefix="dld-profile-") as folder:
        copy = os.path.join(folder, f"{stem}.onnx")
        save(copy)
        yield copy


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
    device, output, seed, threads, gpu_metrics, lock_clocks, sampling_ms. Unknown ones raise SpecError naming
    the known ones. Raises UnavailableError for a missing backend/provider, ActivityFailed for a failed run.
    """
    if backend not in BACKENDS:
        raise UnavailableError(f"backend {backend!r} is not available; available: {list(BACKENDS)}")
    known = set(OrtProfileSpec.__dataclass_fields__) - {"model", "provider"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise SpecError(f"profile: unknown option(s) {unknown}; known options are {sorted(known)}")
    with model_path(model_or_document) as path:
        if "output" not in options and path != os.fspath(getattr(model_or_document, "path", path) or path):
            # A temporary copy: put the report beside the document's file, not in the temp folder.
            original = getattr(model_or_document, "path", None)
            options["output"] = _default_output(original) if original else None
        spec = OrtProfileSpec(model=path, provider=provider, **options)
        result = run_activity(spec, on_progress=on_progress, on_log=on_log)
    if result.ok and result.report_path:
        return load_report(result.report_path)
    if result.error_kind == BAD_INPUT:
        raise SpecError(result.error or "bad input")
    if result.error_kind == UNAVAILABLE:
        raise UnavailableError(result.error or "unavailable")
    raise ActivityFailed(result)


def _default_output(document_path: Any) -> str:
    path = Path(os.fspath(document_path))
    return str(path.with_name(path.stem + ".dld-report.json"))
