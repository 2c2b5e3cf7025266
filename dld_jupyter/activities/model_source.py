"""What to run an activity on: a model path, a document's file, or a saved copy of a document's unsaved edits.

Duck-typed (`.path`, `.save(path)` or `.save_copy(path)`, optionally `.dirty`, `.name`) so this layer does not import
the document layer. Profiling runs unsaved edits from a copy in a private temporary folder, removed when the run
ends (`release_copy`) or, at the latest, when the process exits: a full copy kept beside every report (46 MB for
ResNet-18, 435 MB for BERT-base) was never removed. The report's name links find the live designer of the document
first, then the document's own file (`summary.settings["source_document"]`). A copy is kept beside the report
(`<report stem>.profiled.onnx`) only when asked (`keep=True`). An engine export runs from a temporary copy.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec import REPORT_SUFFIX, default_report_path

PROFILED_COPY_SUFFIX = ".profiled.onnx"
_temporary: set[str] = set()  # private folders holding copies of unsaved edits that a run still needs
_temporary_lock = threading.Lock()


def kept_copy_path(report_path: str) -> str:
    """`model.dld-report.json` -> `model.profiled.onnx` beside it."""
    report = Path(report_path)
    stem = report.name[: -len(REPORT_SUFFIX)] if report.name.endswith(REPORT_SUFFIX) else report.stem
    return str(report.with_name(stem + PROFILED_COPY_SUFFIX))


def _document_parts(model_or_document: Any) -> tuple[str | None, str]:
    """(the document's file or None, its home: that file, or `<cwd>/<name>.onnx` for a new model)."""
    save_copy = getattr(model_or_document, "save_copy", None)
    save = getattr(model_or_document, "save", None)
    if not callable(save_copy) and not callable(save):
        raise SpecError(
            f"profile: expected a model path or a document with .path and .save(), got "
            f"{type(model_or_document).__name__}"
        )
    path = getattr(model_or_document, "path", None)
    name = getattr(model_or_document, "name", "model")
    folder = os.getcwd()
    root = getattr(model_or_document, "parent", None)  # a subgraph or function document: beside its model's file
    while root is not None and getattr(root, "parent", None) is not None:
        root = root.parent
    if root is not None and getattr(root, "path", None):
        folder = os.path.dirname(os.fspath(root.path))
    home = os.fspath(path) if path else os.path.join(folder, f"{name}.onnx")
    return (os.fspath(path) if path else None), home


def _save_copy(model_or_document: Any, copy: str) -> None:
    save_copy = getattr(model_or_document, "save_copy", None)
    if callable(save_copy):
        save_copy(copy)
        return
    path = getattr(model_or_document, "path", None)
    model_or_document.save(copy)
    # Document.save(path) is "save as": point the document back at its own file.
    with contextlib.suppress(AttributeError):
        model_or_document.path = path


def _is_saved(model_or_document: Any, path: str | None) -> bool:
    return bool(path) and not getattr(model_or_document, "dirty", False) and os.path.isfile(path or "")


def profiled_source(model_or_document: Any, keep: bool = False) -> tuple[str, str, str | None]:
    """(path to profile, default report path, the document's own file when the path is a copy of its unsaved
    edits, else None). The copy goes to a private temporary folder that `release_copy` (or the process exit)
    removes; with `keep`, beside the default report (`kept_copy_path`), where it stays."""
    if isinstance(model_or_document, (str, os.PathLike)):
        path = os.fspath(model_or_document)
        return path, default_report_path(path), None
    path, home = _document_parts(model_or_document)
    report = default_report_path(home)
    if _is_saved(model_or_document, path):
        return home, report, None
    if keep:
        copy = kept_copy_path(report)
        _save_copy(model_or_document, copy)
        return copy, report, home
    copy = os.path.join(temporary_folder("dld-profiled-"), os.path.basename(home))
    try:
        _save_copy(model_or_document, copy)
    except BaseException:
        release_copy(copy)
        raise
    return copy, report, home


def temporary_folder(prefix: str) -> str:
    """A new private folder for a copy that a run reads (profiles, user tools), removed by `release_copy` of a file
    in it or, at the latest, when the process exits."""
    folder = tempfile.mkdtemp(prefix=prefix)
    with _temporary_lock:
        _temporary.add(folder)
    return folder


def release_copy(path: str | os.PathLike[str]) -> None:
    """Remove the temporary copy `path` (its private folder from `temporary_folder`); anything else is left."""
    folder = os.path.dirname(os.path.abspath(path))
    with _temporary_lock:
        if folder not in _temporary:
            return
        _temporary.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)


@atexit.register
def _release_all() -> None:
    """A kernel or script that exits while a run still held a copy leaves nothing behind either."""
    with _temporary_lock:
        folders = list(_temporary)
        _temporary.clear()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def model_path(model_or_document: Any) -> Iterator[tuple[str, str]]:
    """(path to run on, default report path): the path itself, a document's file, or a temporary copy of its
    unsaved edits that is removed afterwards (engine exports, whose outputs do not link back to nodes)."""
    if isinstance(model_or_document, (str, os.PathLike)):
        path = os.fspath(model_or_document)
        yield path, default_report_path(path)
        return
    path, home = _document_parts(model_or_document)
    if _is_saved(model_or_document, path):
        yield home, default_report_path(home)
        return
    with tempfile.TemporaryDirectory(prefix="dld-activity-") as folder:
        copy = os.path.join(folder, os.path.basename(home))
        _save_copy(model_or_document, copy)
        yield copy, default_report_path(home)
