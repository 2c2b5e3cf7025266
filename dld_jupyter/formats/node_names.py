"""The one rule that names a model's nodes: Model Explorer's, so the designer, the reports and Model Explorer agree.

Why: model-explorer-onnx names every node by onnx-ir's `passes.common.NameFixPass` before it draws, so an unnamed
node is `node`, `node_1`, … there and a second node named `x` is `x_1`. Opening a model names its unnamed nodes by
that rule (seed 000: a unique name "automatically generated … if not present in the ONNX model"), the activity
worker names the unnamed nodes of a model it profiles the same way (so a report's layers are the designer's nodes),
and node data is keyed by the pass's names. The rule is written here in plain Python over a tree of names, not run
through the pass, because the worker runs on GPU hosts without onnx-ir (tests check it against the pass itself).

The pass, per graph or function: nodes in order, each node's subgraphs (attribute order) right after it; node names
unique within their own graph (a subgraph starts an empty set), one counter per preferred name over the whole tree;
an empty name prefers `node`, a repeated one itself, and takes `<preferred>_<k>` for the first free k counting on.
Opening never renames a named node, so an unnamed node takes the pass's name unless a named node of its graph
already has that name (the pass would rename that one), then the next free `node_<k>`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

K = TypeVar("K")
PREFERRED = "node"  # what the pass's SimpleNameGenerator prefers for an unnamed node
GENERATED_META = "dld_generated_name"  # ir node.meta: the name opening gave it (document/files/io.py), until saved
_GRAPH, _GRAPHS = 5, 10  # onnx.AttributeProto.GRAPH / GRAPHS (no onnx import: plain codecs)


@dataclass
class NameNode(Generic[K]):
    """A node of the tree: its key (whatever the caller maps names back to), name, and subgraphs in order."""

    key: K
    name: str
    subgraphs: list[list[NameNode[K]]] = field(default_factory=list)


def _next_free(preferred: str, used: set[str], counter: Counter[str]) -> str:
    """The pass's `_find_and_record_next_unique_name`."""
    name = preferred
    while name in used:
        counter[preferred] += 1
        name = f"{preferred}_{counter[preferred]}"
    used.add(name)
    return name


@dataclass
class _Named(Generic[K]):
    node: NameNode[K]
    name: str  # what the pass names it
    scope: int  # which graph of the tree it is in


def _walk(graph: Sequence[NameNode[K]]) -> list[_Named[K]]:
    counter: Counter[str] = Counter()
    out: list[_Named[K]] = []
    scopes = 0

    def walk(nodes: Sequence[NameNode[K]]) -> None:
        nonlocal scopes
        scope, scopes = scopes, scopes + 1
        used: set[str] = set()
        for node in nodes:
            if not node.name:
                name = _next_free(PREFERRED, used, counter)
            elif node.name in used:
                name = _next_free(node.name, used, counter)
            else:
                used.add(node.name)
                name = node.name
            out.append(_Named(node, name, scope))
            for sub in node.subgraphs:
                walk(sub)

    walk(graph)
    return out


def pass_names(graph: Sequence[NameNode[K]]) -> list[tuple[K, str]]:
    """(key, name) of every node of the tree, as NameFixPass names it, in the pass's order (its Model Explorer id)."""
    return [(named.node.key, named.name) for named in _walk(graph)]


def names_for_unnamed(graph: Sequence[NameNode[K]]) -> list[tuple[int, K, str]]:
    """(position in the pass's walk, key, generated name) of each unnamed node of the tree: the pass's name when no
    named node of its graph has it, else the next free `node_<k>` of that graph. Named nodes keep their names
    (repeated ones too)."""
    walked = _walk(graph)
    given: dict[int, set[str]] = {}  # per graph: the names nodes have
    for named in walked:
        if named.node.name:
            given.setdefault(named.scope, set()).add(named.node.name)
    taken = {scope: set(names) for scope, names in given.items()}  # per graph: given and generated
    clashes = []
    for named in walked:
        if not named.node.name:
            if named.name in given.get(named.scope, ()):
                clashes.append(named)
            else:
                taken.setdefault(named.scope, set()).add(named.name)
    counters: dict[int, Counter[str]] = {}
    for named in clashes:  # the pass would rename the named node; opening names this one anew
        scope = named.scope
        named.name = _next_free(PREFERRED, taken.setdefault(scope, set()), counters.setdefault(scope, Counter()))
    return [(position, named.node.key, named.name) for position, named in enumerate(walked) if not named.node.name]


# ---------------------------------------------------------------- protobuf models (the worker's view; duck-typed)


def proto_tree(nodes: Any, top: bool = False) -> list[NameNode[tuple[Any, int | None]]]:
    """The tree of a GraphProto's or FunctionProto's `node` list; keys: (NodeProto, its index when `top`)."""
    tree = []
    for index, node in enumerate(nodes):
        subgraphs = []
        for attr in node.attribute:
            if attr.type == _GRAPH:
                subgraphs.append(proto_tree(attr.g.node))
            elif attr.type == _GRAPHS:
                subgraphs.extend(proto_tree(g.node) for g in attr.graphs)
        tree.append(NameNode((node, index if top else None), node.name, subgraphs))
    return tree


@dataclass
class Generated:
    """What naming a model's unnamed nodes did: each generated name, the main graph's nodes that got one, and where
    each named node is: tree (None the main graph, else a local function's (domain, name, overload)) -> positions
    in the pass's walk."""

    names: list[str] = field(default_factory=list)
    main_indices: list[int] = field(default_factory=list)
    positions: dict[tuple[str, str, str] | None, list[int]] = field(default_factory=dict)


def name_unnamed_in(nodes: Any, top: bool = True) -> Generated:
    """Name the unnamed nodes of one GraphProto's or FunctionProto's `node` list (and of their subgraphs) in place;
    `main_indices` are positions in `nodes` when `top`."""
    generated = Generated()
    if not _unnamed(nodes):  # the usual export: every name there, nothing to walk
        return generated
    walked = names_for_unnamed(proto_tree(nodes, top))
    for _position, (node, index), name in walked:
        node.name = name
        generated.names.append(name)
        if index is not None:
            generated.main_indices.append(index)
    generated.positions[None] = [position for position, _key, _name in walked]
    return generated


def name_unnamed_nodes(model: Any) -> Generated:
    """Name every unnamed node of a ModelProto in place (main graph, its subgraphs, each local function's body)."""
    generated = name_unnamed_in(model.graph.node)
    for function in model.functions:  # the pass names each function apart from the graph
        named = name_unnamed_in(function.node, top=False)
        generated.names.extend(named.names)
        if named.names:
            generated.positions[(function.domain, function.name, function.overload)] = named.positions[None]
    return generated


def _unnamed(nodes: Any) -> bool:
    """Whether some node, or some node of a subgraph, has no name (the usual export: none, nothing to walk; about
    1.5 µs a node, comprehensions: protobuf field access is what costs)."""
    if not all(node.name for node in nodes):
        return True
    inner = [attr for node in nodes for attr in node.attribute if attr.type in (_GRAPH, _GRAPHS)]
    return any(_unnamed(attr.g.node) if attr.type == _GRAPH else any(_unnamed(g.node) for g in attr.graphs)
               for attr in inner)
