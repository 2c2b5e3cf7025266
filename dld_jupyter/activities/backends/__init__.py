"""Backends run one activity spec inside the worker process and return a Report.

`onnxruntime` is the embedded default; `tensorrt` arrives with a later issue. Heavy runtimes are imported lazily
so a missing one makes only its backend "unavailable: <reason>".
"""

from __future__ import annotations

from typing import Protocol

from dld_jupyter.activities.spec import OrtProfileSpec
from dld_jupyter.reports.model import Report


class Reporter(Protocol):
    """Progress and log sink of a running backend (the worker's protocol channel, or a test double)."""

    def progress(self, fraction: float, phase: str) -> None: ...

    def log(self, message: str, level: str = "info") -> None: ...


def run_backend(spec: OrtProfileSpec, reporter: Reporter) -> Report:
    from dld_jupyter.activities.backends.onnxruntime import profile_onnxruntime

    return profile_onnxruntime(spec, reporter)
