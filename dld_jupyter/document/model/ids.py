"""Stable UI ids for the nodes and values of a document, independent of ONNX names, and the one id scheme.

Ids are handed out on first sight (``n0``, ``n1``… for nodes, ``v0``… for values) and never reused: a removed node
keeps its id, so undoing the removal brings back the same id. Objects are keyed by ``id()``; the map holds a
strong reference to each, so an ``id()`` is never recycled while it is a key.

Every element the canvas draws has an id of this scheme, and only this module reads or writes its prefixes (26
inline prefix checks and 9 inline edge ids were spread over the package before): ``n<k>`` an op node, ``v<k>`` a
value, ``i<value id>``/``o<value id>`` a graph input/output node, ``r<value id>`` an outer reference, ``g:<path>`` a
group, ``f:<instance>/…`` an element of an expanded function body, ``<src>:<i>-><dst>:<j>`` an edge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, TypeVar

import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError

IdKind = Literal["op", "value", "input", "output", "outer", "group", "body", "edge"]
GROUP_PREFIX = "g:"
BODY_PREFIX = "f:"
IO_KINDS: frozenset[IdKind] = frozenset({"input", "output", "outer"})  # nodes that stand for a value
_NODE_PREFIX, _VALUE_PREFIX = "n", "v"
_VALUE_NODE_PREFIX: dict[str, IdKind] = {"i": "input", "o": "output", "r": "outer"}
_PREFIX_OF_KIND = {kind: prefix for prefix, kind in _VALUE_NODE_PREFIX.items()}
_EDGE = re.compile(r"(.+):(-?\d+)->(.+):(-?\d+)", re.DOTALL)  # a collapsed group's link has index -1


def kind_of(element_id: str) -> IdKind:
    """What an element id names; raises for a string that is no id of this scheme."""
    if "->" in element_id and _EDGE.fullmatch(element_id):
        return "edge"
    if element_id.startswith(GROUP_PREFIX):
        return "group"
    if element_id.startswith(BODY_PREFIX):
        return "body"
    head = element_id[:1]
    if head == _NODE_PREFIX:
        return "op"
    if head == _VALUE_PREFIX:
        return "value"
    kind = _VALUE_NODE_PREFIX.get(head)
    if kind is None:
        raise DocumentError(
            f"Read element id {element_id!r}",
            "it is none of the id kinds (n<k>, v<k>, i/o/r<value id>, g:<path>, f:<instance>/…, src:i->dst:j).",
            "Use an id from doc.nodes(), doc.edges() or the canvas selection.",
        )
    return kind


def nth_node_id(index: int) -> str:
    """The id the `index`-th node handed an id gets (a document numbers its nodes in file order first)."""
    return f"{_NODE_PREFIX}{index}"


def nth_value_id(index: int) -> str:
    """The id the `index`-th value handed an id gets."""
    return f"{_VALUE_PREFIX}{index}"


def value_node_id(kind: IdKind, value_id: str) -> str:
    """The id of the node that stands for a value: a graph input, a graph output or an outer reference."""
    return _PREFIX_OF_KIND[kind] + value_id


def value_of_node(node_id: str) -> str:
    """The value id behind an input, output or outer-reference node id."""
    if kind_of(node_id) not in IO_KINDS:
        raise DocumentError(
            f"Read the value of node {node_id!r}", "only input, output and outer-reference nodes stand for a value.",
            "Pass an id that starts with i, o or r.",
        )
    return node_id[1:]


def edge_id(src: str, src_index: int, dst: str, dst_index: int) -> str:
    """The id of the link from output ``src_index`` of ``src`` to input ``dst_index`` of ``dst``."""
    return f"{src}:{src_index}->{dst}:{dst_index}"


def parse_edge_id(element_id: str) -> tuple[str, int, str, int]:
    """``(src, src_index, dst, dst_index)`` of an edge id; raises for any other id."""
    match = _EDGE.fullmatch(element_id)
    if match is None:
        raise DocumentError(
            f"Read edge id {element_id!r}", "an edge id reads <source>:<output>-><target>:<input>.",
            "Use an id from doc.edges() or the canvas.",
        )
    src, si, dst, di = match.groups()
    return src, int(si), dst, int(di)


_Element = TypeVar("_Element", ir.Node, ir.Value)


def _mint(nth: Callable[[int], str], element: _Element, ids: dict[int, str], elements: dict[str, _Element]) -> str:
    """The next id of its kind (`nth`): ids are never dropped, so the count of ids handed out numbers the new one."""
    new = nth(len(elements))
    ids[id(element)] = new
    elements[new] = element
    return new


class IdMap:
    """Two-way map between ir objects and their ids."""

    def __init__(self) -> None:
        self._node_ids: dict[int, str] = {}
        self._nodes: dict[str, ir.Node] = {}
        self._value_ids: dict[int, str] = {}
        self._values: dict[str, ir.Value] = {}

    def node_id(self, node: ir.Node) -> str:
        nid = self._node_ids.get(id(node))  # the hit stays inline: a 50k-node model asks once per link
        return nid if nid is not None else _mint(nth_node_id, node, self._node_ids, self._nodes)

    def value_id(self, value: ir.Value) -> str:
        vid = self._value_ids.get(id(value))
        return vid if vid is not None else _mint(nth_value_id, value, self._value_ids, self._values)

    def node(self, node_id: str) -> ir.Node:
        node = self._nodes.get(node_id)
        if node is None:
            raise DocumentError(f"Find node {node_id!r}", "no node has this id.", "Use an id from doc.nodes().")
        return node

    def value(self, value_id: str) -> ir.Value:
        value = self._values.get(value_id)
        if value is None:
            raise DocumentError(
                f"Find value {value_id!r}", "no value has this id.", "Use a value id from a NodeView terminal."
            )
        return value
