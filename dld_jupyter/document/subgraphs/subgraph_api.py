"""The Document's subgraph methods (a mixin of Document): list, open, create and remove the subgraphs of a node.

``open_subgraph`` finds SubgraphDocument through the opener registry of ``child_lock`` (subgraph_document.py
imports document.py, so document.py cannot import it). The edits themselves are in subgraph_edits.py.
"""

from __future__ import annotations

from typing import Any

from dld_jupyter.document.model.document_parts import DocumentPart
from dld_jupyter.document.subgraphs import subgraph_edits as sg
from dld_jupyter.document.subgraphs.child_lock import opener
from dld_jupyter.document.subgraphs.subgraph_scope import SubgraphSlot


class Subgraphs(DocumentPart):
    """Subgraphs of the model's nodes (seed 000 "Subgraphs"); see docs/document-api.md."""

    def subgraph_slots(self, node_id: str) -> list[SubgraphSlot]:
        """The subgraphs of an op node: (attribute, index for GRAPHS lists else None, graph name, node count)."""
        return sg.subgraph_slots(self._ctx, node_id)

    def open_subgraph(self, node_id: str, attribute: str, index: int | None = None) -> Any:
        """Open a subgraph of an op node as a ChildDocument (kind "subgraph"); this document is read-only until
        it is confirmed or closed (subgraph_document.py)."""
        return opener("subgraph")(self, node_id, attribute, index)

    def create_subgraph(
        self, node_id: str, attribute: str, name: str | None = None, duplicate_of: int | None = None
    ) -> int | None:
        """A new subgraph (empty, or a copy of ``subgraph_slots(node_id)[duplicate_of]``) with a name unique in
        the model: a GRAPH attribute gets it (None returned), a GRAPHS list appends it (its index returned)."""
        with self.transaction(f"Create subgraph {attribute}"):
            return sg.create_subgraph(self._ctx, self._do, node_id, attribute, name, duplicate_of)

    def remove_subgraph(self, node_id: str, attribute: str, index: int) -> None:
        """Remove entry ``index`` of a GRAPHS list attribute."""
        with self.transaction(f"Remove subgraph {attribute}[{index}]"):
            sg.remove_subgraph(self._ctx, self._do, node_id, attribute, index)
