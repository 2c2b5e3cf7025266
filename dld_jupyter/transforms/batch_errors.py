"""The failures of a batch modification that front doors tell apart: bad options and missing dependencies (CLI exit
codes 2, 3) and a result that would not be a valid model (`postcondition`; exit 1, nothing written).

All are DocumentErrors (what, why, fix), so callers that do not care catch one type.
"""

from __future__ import annotations

from dld_jupyter.document import DocumentError


class Unavailable(DocumentError):
    """A dependency the transform needs is not installed (Polygraphy, onnxconverter-common, onnx-graphsurgeon)."""


class BadOption(DocumentError):
    """An option of the transform is out of range (a negative threshold, zero passes, an unknown type)."""


class InvalidResult(DocumentError):
    """The transform's result fails the full checker or onnxruntime's load while the original passed: refused."""
