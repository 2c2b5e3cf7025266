"""Names: valid C90 identifiers, uniqueness of node and value names, generated names such as ``Conv_0``.

Node names must be unique across the graph and valid C90 identifiers when we edit them (seed 000 "Editing a
Model"). Files we open may break both rules; we keep them as they are until the user renames.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import onnx_ir as ir

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
C90_KEYWORDS = frozenset(
    [
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "int",
        "long",
        "register",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
    ]
)


def is_c90_identifier(name: str) -> bool:
    """True for a letter or underscore followed by letters, digits and underscores, not a C90 keyword."""
    return bool(_IDENTIFIER.match(name)) and name not in C90_KEYWORDS


def to_identifier(text: str) -> str:
    """Turn any text (an op type, a formal name) into a valid identifier stem."""
    stem = re.sub(r"[^A-Za-z0-9_]", "_", text) or "node"
    if stem[0].isdigit() or stem in C90_KEYWORDS:
        stem = "_" + stem
    return stem


class NameIndex:
    """Counts of the node names and value names of one graph, built on first use, kept current by commands."""

    def __init__(self, graph: ir.Graph) -> None:
        self._graph = graph
        self._nodes: Counter[str] | None = None
        self._values: Counter[str] | None = None

    def _build(self) -> tuple[Counter[str], Counter[str]]:
        if self._nodes is None or self._values is None:
            graph = self._graph
            nodes: Counter[str] = Counter(node.name for node in graph if node.name)
            values: Counter[str] = Counter()
            for value in graph.inputs:
                if value.name:
                    values[value.name] += 1
            for name in graph.initializers:
                values[name] += 1
            for node in graph:
                for out in node.outputs:
                    if out.name:
                        values[out.name] += 1
            # A graph input may also be an initializer (IR < 4): count it once.
            for value in graph.inputs:
                if value.name and value.is_initializer():
                    values[value.name] -= 1
            self._nodes, self._values = nodes, values
        return self._nodes, self._values

    def node_count(self, name: str) -> int:
        return self._build()[0][name]

    def value_count(self, name: str) -> int:
        return self._build()[1][name]

    def node_renamed(self, old: str | None, new: str | None) -> None:
        if self._nodes is not None:
            _move(self._nodes, old, new)

    def value_renamed(self, old: str | None, new: str | None) -> None:
        if self._values is not None:
            _move(self._values, old, new)

    def unique_node_name(self, stem: str) -> str:
        nodes = self._build()[0]
        return _first_free(to_identifier(stem), lambda name: nodes[name] > 0)

    def unique_value_name(self, stem: str, taken: set[str] | None = None) -> str:
        values = self._build()[1]
        extra = taken or set()
        return _first_free(to_identifier(stem), lambda name: values[name] > 0 or name in extra, start_bare=True)


def _move(counter: Counter[str], old: str | None, new: str | None) -> None:
    if old:
        counter[old] -= 1
        if counter[old] <= 0:
            del counter[old]
    if new:
        counter[new] += 1


def _first_free(stem: str, taken: Callable[[str], bool], start_bare: bool = False) -> str:
    if start_bare and not taken(stem):
        return stem
    i = 0
    while taken(f"{stem}_{i}"):
        i += 1
    return f"{stem}_{i}"
