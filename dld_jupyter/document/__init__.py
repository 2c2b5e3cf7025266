"""The document layer: an ONNX model as an editable document (see docs/document-api.md)."""

from __future__ import annotations

from .functions.function_document import FunctionDocument
from .functions.function_model import FunctionInfo, FunctionParameter
from .functions.function_parameters import ReferenceChoice
from .model.document import Document
from .model.errors import DocumentError
from .model.events import (
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
from .model.views import EdgeView, NodeView, TerminalView
from .subgraphs.child_document import ChildDocument
from .subgraphs.subgraph_document import SubgraphDocument
from .subgraphs.subgraph_scope import SubgraphSlot

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
