"""Polygraphy as the engine of the FP16 and sanitize transforms: imported lazily, its log captured as lines.

Polygraphy (and onnxconverter-common behind its FP16 loader) is a heavy optional dependency (DESIGN.md): importing
this package never imports it, and a missing one turns into `Unavailable` (what, why, fix; the CLI exits 3) at the
moment a transform needs it. Polygraphy logs by printing to stdout and onnxconverter-common warns through
`warnings`; `captured()` turns both into the lines of a status report's expandable log.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from types import ModuleType

from dld_jupyter.transforms.batch_errors import Unavailable

MAX_LOG_LINES = 400  # a status log longer than this is cut, saying how many lines were left out


def polygraphy_onnx(what: str) -> ModuleType:
    """`polygraphy.backend.onnx`, or Unavailable saying what to install."""
    try:
        import polygraphy.backend.onnx as backend
    except ImportError as error:
        raise Unavailable(what, f"Polygraphy cannot be imported ({error}).", "pip install polygraphy") from None
    module: ModuleType = backend
    return module


def require_onnxconverter(what: str) -> None:
    try:
        import onnxconverter_common  # noqa: F401
    except ImportError as error:
        raise Unavailable(
            what, f"onnxconverter-common cannot be imported ({error}).", "pip install onnxconverter-common"
        ) from None


@contextlib.contextmanager
def captured(lines: list[str]) -> Iterator[None]:
    """Append what Polygraphy prints and the warnings raised inside to `lines` (stripped, non-empty)."""
    buffer = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buffer):
        warnings.simplefilter("always")
        try:
            yield
        finally:
            printed = buffer.getvalue().splitlines()
            lines.extend(line.rstrip() for line in printed if line.strip() and "'colored' module" not in line)
            lines.extend(f"warning: {w.message}" for w in caught)


def trimmed(lines: list[str]) -> list[str]:
    """At most MAX_LOG_LINES lines, the last one saying how many were left out."""
    if len(lines) <= MAX_LOG_LINES:
        return lines
    return [*lines[: MAX_LOG_LINES - 1], f"... {len(lines) - MAX_LOG_LINES + 1:,} more lines"]
