"""What a report viewer is opened on and what its reports were made from: a Report, a dld report file or a foreign
profile (trtexec, ONNX Runtime) read once; the labels of several reports; the model file a report names (or the
document a run on a copy of unsaved edits profiled), which its layer links open."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import default_labels
from dld_jupyter.widgets.report.report_links import LinkError, resolve_model


def load_report(source: Report | str | os.PathLike[str]) -> tuple[Report, str | None]:
    """The report of `source` and the folder of its file (None for a Report given as it is)."""
    if isinstance(source, Report):
        return source, None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"expected a Report or a path, got {type(source).__name__}")
    from dld_jupyter.report_format.io import report_from_data
    from dld_jupyter.reports.open import open_report

    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"{os.fspath(source)!r} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"{os.fspath(source)!r} is a folder: give a .dld-report.json or a trtexec profile")
    folder = str(path.resolve().parent)
    # A dld report is parsed once here (open_report would parse it twice: to detect its kind, then to load it).
    try:
        data = json.loads(path.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError):
        data = None
    if isinstance(data, dict) and "format" in data:
        return report_from_data(data, os.fspath(source)), folder
    return open_report(path), folder


def report_labels(reports: Sequence[Report], sources: Sequence[str | None]) -> list[str]:
    """Model names (numbered when shared); reports of one model that came from files are named by their files
    ("mobilenet_opt", "mobilenet_noopt" say more than "mobilenet (1)", "mobilenet (2)")."""
    labels = default_labels(reports) if reports else []
    names = [r.summary.model or "report" for r in reports]
    for i, source in enumerate(sources):
        if source and names.count(names[i]) > 1:
            labels[i] = Path(source).name.removesuffix(".json").removesuffix(".dld-report").removesuffix(".profile")
    if len(set(labels)) < len(labels):  # two files of one name in different folders
        labels = [f"{label} ({i + 1})" if labels.count(label) > 1 else label for i, label in enumerate(labels)]
    return labels


def source_document(report: Report) -> str | None:
    """The document's own file when the report profiled a copy of its unsaved edits (OrtProfileSpec)."""
    source = report.summary.settings.get("source_document")
    return str(source) if source else None


def model_of(report: Report, folder: str | None) -> str:
    """The report's model file; for a run on a temporary copy of unsaved edits (removed after the run), the
    profiled document's own file."""
    try:
        return resolve_model(report.summary.model_path, folder)
    except LinkError:
        source = source_document(report)
        if source and os.path.isfile(source):
            return os.path.abspath(source)
        raise
