"""The two failures of a batch modification that front doors tell apart from a failed run (CLI exit codes 2, 3).

Both are DocumentErrors (what, why, fix), so callers that do not care catch one type.
"""

from __future__ import annotations

from dld_jupyter.document import DocumentError


class Unavailable(DocumentError):
    """A dependency the transform needs is not installed (Polygraphy, onnxconverter-common, onnx-graphsurgeon)."""


class BadOption(DocumentError):
    """An option of the transform is out of range (a negative threshold, zero passes, an unknown type)."""
