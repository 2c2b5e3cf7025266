"""How a live analysis names the analysed model's nodes (issue 37): the worker numbers them in file order and keys
each by its ONNX name (`#<file index>` for a node without a unique one); a designer speaks its document's element ids
(`n12`, `v7`). An analysis owns one `NodeNames` per worker (a new one when analysis layers restart it), and says
where it stopped as a `Stop` naming the node."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from dld_jupyter.document import Document
from dld_jupyter.document.model.ids import kind_of


@dataclass(frozen=True)
class Stop:
    """Where `run`, `step` or `resume` stopped: the node (it has run, its outputs are inspectable), by ONNX name."""

    name: str  # the node's ONNX name (`#<file index>` for a node without a unique one)
    op_type: str
    index: int  # its place in `execution_order`

    def __str__(self) -> str:
        return f"{self.name} ({self.op_type}, #{self.index} in execution order)"


class NodeNames:
    """The worker's keys and the document's node id of each node index, and the lookups between them."""

    def __init__(self, keys: list[str], document: Document | None, layer_nodes: int) -> None:
        self.keys = keys
        self._document = document
        self.ids = self._document_ids(layer_nodes)

    def _document_ids(self, layer_nodes: int) -> list[str]:
        """The document's node id of each node index of the analysed model (the same node order as the file; the
        analysis layers' nodes, appended after the model's, keep their names)."""
        if self._document is None:
            return list(self.keys)
        nodes = list(self._document.model.graph)
        if len(nodes) != len(self.keys) - layer_nodes:
            return list(self.keys)
        return [self._document.node_id(node) for node in nodes] + self.keys[len(nodes) :]

    def index(self, node: str | int) -> str | int:
        """A node index for an ONNX name (first: the user's language), a document id, a `#<index>` key or an index."""
        if isinstance(node, str) and node in self.keys:
            return self.keys.index(node)
        if isinstance(node, str) and node in self.ids:
            return self.ids.index(node)
        return node

    def value(self, node_or_value: str | int) -> str | int:
        """A value's name for a document value id; else as `index`."""
        if self._document is not None and isinstance(node_or_value, str):
            with contextlib.suppress(Exception):  # not a value id of the document: a value name
                if kind_of(node_or_value) == "value":
                    name = self._document.query(lambda ctx: ctx.ids.value(node_or_value).name)
                    if name:
                        return str(name)
        return self.index(node_or_value)

    def id_of(self, node: str | int) -> str:
        """The document id of a node named any of those ways."""
        found = self.index(node)
        if isinstance(found, int) and 0 <= found < len(self.ids):
            return self.ids[found]
        return self.ids[self.keys.index(found)] if found in self.keys else str(found)
