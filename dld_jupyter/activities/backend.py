"""The contract every backend meets (ONNX Runtime now, TensorRT next): a name, a reason it cannot run, and a run.

A backend runs one kind of activity spec inside the worker process and returns the Report (assembled with
`report_format.builder`). Its heavy runtime is imported inside `available()` checks and `run`, never at import:
a missing one makes only that backend "unavailable: <reason>" (DESIGN.md, Layers). The registry of backends is
`activities.backends`.
"""

from __future__ import annotations

from typing import Protocol

from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.report_format.model import Report


class Backend(Protocol):
    """One backend: `spec_kind` is the `ActivitySpec.KIND` it runs."""

    @property
    def name(self) -> str:
        """Short name users pass (`profile(backend="onnxruntime")`) and reports carry in `summary.backend`."""
        ...

    @property
    def spec_kind(self) -> str: ...

    def available(self) -> str | None:
        """None when the backend can run here; else why not, with the fix ("onnxruntime is not installed: ...")."""
        ...

    def run(self, spec: ActivitySpec, reporter: Reporter) -> Report:
        """Run `spec` (of this backend's kind), reporting progress; raise an ActivityError on failure."""
        ...
