"""The document layer: an ONNX model as an editable document (see docs/document-api.md)."""

from __future__ import annotations

from .document import Document
from .errors import DocumentError
from .events import (
    DiagnosticsChanged,
    DirtyChanged,
    EdgesAdded,
    EdgesRemoved,
    Event,
    InitializersChanged,
    ModelInfoChanged,
    NodesAdded,
    NodesChanged,
    NodesMoved,
    NodesRemoved,
)
from .views import EdgeView, NodeView, TerminalView

__all__ = [
    "DiagnosticsChanged",
    "DirtyChanged",
    "Document",
    "DocumentError",
    "EdgeView",
    "EdgesAdded",
    "EdgesRemoved",
    "Event",
    "InitializersChanged",
    "ModelInfoChanged",
    "NodeView",
    "NodesAdded",
    "NodesChanged",
    "NodesMoved",
    "NodesRemoved",
    "TerminalView",
]
