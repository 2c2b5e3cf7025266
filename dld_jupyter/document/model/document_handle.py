"""What the collaborators a Document owns (``doc.functions``, ``doc.subgraphs``, ``doc.trt``) use of it, as a
Protocol: each holds one typed handle on its document instead of being a mixin of it, and none imports document.py
(which imports them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    import onnx_ir as ir

    from dld_jupyter.document.edits.commands import Command, Context

T = TypeVar("T")


class DocumentHandle(Protocol):
    """The document as its collaborators see it."""

    @property
    def parent(self) -> object | None:
        """The document a child document edits a part of; None for a main model."""

    @property
    def kind(self) -> str:
        """A child document's kind ("subgraph" | "function"); "" for a main model."""

    @property
    def model(self) -> ir.Model: ...

    def node_id(self, node: ir.Node) -> str: ...

    def ir_node(self, node_id: str) -> ir.Node | None: ...

    def edit(self, label: str, function: Callable[[Context, Callable[[Command], None]], T]) -> T: ...

    def query(self, function: Callable[[Context], T]) -> T: ...
