"""The document layer: an ONNX model as an editable document (see docs/document-api.md)."""

from __future__ import annotations

from .child_document import ChildDocument
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
    ReadOnlyChanged,
)
from .function_document import FunctionDocument
from .function_model import FunctionInfo, FunctionParameter
from .function_parameters import ReferenceChoice
from .subgraph_document import SubgraphDocument
from .subgraph_scope import SubgraphSlot
from .views import EdgeView, NodeView, TerminalView

__all__ = [
    "ChildDocument",
    "DiagnosticsChanged",
    "DirtyChanged",
    "Document",
    "DocumentError",
    "EdgeView",
    "EdgesAdded",
    "EdgesRemoved",
    "Event",
    "FunctionDocument",
    "FunctionInfo",
    "FunctionParameter",
    "InitializersChanged",
    "ModelInfoChanged",
    "NodeView",
    "NodesAdded",
    "NodesChanged",
    "NodesMoved",
    "NodesRemoved",
    "ReadOnlyChanged",
    "ReferenceChoice",
    "SubgraphDocument",
    "SubgraphSlot",
    "TerminalView",
]
