"""``doc.subgraphs``: list, open, create and remove the subgraphs of a node (seed 000 "Subgraphs"). A collaborator
the Document owns, holding a typed handle on it (it was a mixin reaching its host).

``open`` finds SubgraphDocument through the opener registry of ``child_lock`` (subgraph_document.py imports
document.py, so document.py cannot import it). The edits themselves are in subgraph_edits.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dld_jupyter.document.subgraphs import subgraph_edits as sg
from dld_jupyter.document.subgraphs.child_lock import opener
from dld_jupyter.document.subgraphs.subgraph_scope import SubgraphSlot

if TYPE_CHECKING:
    from dld_jupyter.document.model.document_handle import DocumentHandle


class Subgraphs:
    """``doc.subgraphs``; see docs/document-api.md."""

    def __init__(self, document: DocumentHandle) -> None:
        self._doc = document

    def slots(self, node_id: str) -> list[SubgraphSlot]:
        """The subgraphs of an op node: (attribute, index for GRAPHS lists else None, graph name, node count)."""
        return self._doc.query(lambda ctx: sg.subgraph_slots(ctx, node_id))

    def open(self, node_id: str, attribute: str, index: int | None = None) -> Any:
        """Open a subgraph of an op node as a ChildDocument (kind "subgraph"); the document is read-only until
        it is confirmed or closed (subgraph_document.py)."""
        return opener("subgraph")(self._doc, node_id, attribute, index)

    def create(
        self, node_id: str, attribute: str, name: str | None = None, duplicate_of: int | None = None
    ) -> int | None:
        """A new subgraph (empty, or a copy of ``slots(node_id)[duplicate_of]``) with a name unique in the model:
        a GRAPH attribute gets it (None returned), a GRAPHS list appends it (its index returned)."""
        return self._doc.edit(
            f"Create subgraph {attribute}",
            lambda ctx, do: sg.create_subgraph(ctx, do, node_id, attribute, name, duplicate_of),
        )

    def remove(self, node_id: str, attribute: str, index: int) -> None:
        """Remove entry ``index`` of a GRAPHS list attribute; one undo step."""
        label = f"Remove subgraph {attribute}[{index}]"
        self._doc.edit(label, lambda ctx, do: sg.remove_subgraph(ctx, do, node_id, attribute, index))
