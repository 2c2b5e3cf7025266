"""A diagnostic: one line of the type check list, whichever check found it (onnx.checker, shape inference,
structure, Polygraphy lint).

Its own module so that `checks` (which runs the ONNX checks and starts the lint) and `lint` (which turns
Polygraphy's report into diagnostics) both import it without importing each other.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Severity = Literal["error", "warning", "info"]
Source = Literal["checker", "shape_inference", "structure", "polygraphy"]


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One line of the type check list; `node_id` is what a double-click focuses."""

    severity: Severity
    message: str
    node_id: str | None = None
    fix_hint: str = ""
    source: Source = "checker"
