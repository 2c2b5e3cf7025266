"""`diff(a, b)`: what changed between two versions of a model, by structure, with names only as a hint.

Why (issue 30): exporters rename nodes between versions, and a diff keyed by names (Model Explorer's split view
without a mapping file) then shows everything as changed. Here nodes pair by what they compute (graph_index.py,
matching.py), paired nodes are compared field by field (node_changes.py), and the result lists matched, added,
removed and changed nodes of the main graph, of every subgraph (nested under its node) and of every local function
(functions pair by their (domain, name, overload), which is how nodes call them). `by_scope()` sums the changes per
name-scope group, so a collapsed group on the canvas can say what changed inside it. The models are opened without
reading weights (document/files/io.py); weights are read only to compare the pairs that need it (tensor_content.py).
Measured: two 7k-node Llama-shaped graphs in ~0.5 s, opening included (benchmarks/diff_bench.py).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import onnx
import onnx_ir as ir

from dld_jupyter.document.files import io as doc_io
from dld_jupyter.document.model.document import Document

from .graph_index import GraphIndex, attribute_key, scope
from .matching import Matching
from .node_changes import Change, NodeComparer
from .tensor_content import ContentCache

ModelLike = str | os.PathLike[str] | ir.Model | Document | onnx.ModelProto


@dataclass(frozen=True)
class NodeRef:
    """A node of one side: its label (ONNX name, or `OpType #index`), op type and position in its graph."""

    label: str
    op_type: str
    index: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.label, "op_type": self.op_type, "index": self.index}


@dataclass(frozen=True)
class ChangedNode:
    a: NodeRef
    b: NodeRef
    changes: tuple[Change, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.to_dict(), "b": self.b.to_dict(), "changes": [c.to_dict() for c in self.changes]}


@dataclass
class GraphDiff:
    """The diff of one graph (main graph, subgraph or function body). ``pairs`` are (a position, b position)."""

    pairs: list[tuple[int, int]]
    added: list[NodeRef]
    removed: list[NodeRef]
    changed: list[ChangedNode]
    io: list[str] = field(default_factory=list)  # graph inputs/outputs of another count, dtype or shape
    renamed: int = 0  # paired nodes whose names differ (not a change)
    parameters: list[str] = field(default_factory=list)  # a local function's attribute parameters added/removed

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed or self.io or self.parameters)

    def headline(self) -> str:
        if self.identical:
            return "no structural change"
        parts = [f"{len(v)} {k}" for k, v in
                 (("added", self.added), ("removed", self.removed), ("changed", self.changed), ("i/o", self.io)) if v]
        return ", ".join(parts + self.parameters)

    def by_scope(self) -> dict[str, Counter[str]]:
        """Changes per name-scope group and every group above it ("" is the whole graph): what a collapsed
        group on the canvas summarises."""
        groups: dict[str, Counter[str]] = {}
        entries = [(r.label, "added") for r in self.added] + [(r.label, "removed") for r in self.removed]
        entries += [(c.b.label, "changed") for c in self.changed]
        for name, kind in entries:
            path = scope(name)
            for depth in range(len(path) + 1):
                groups.setdefault("/".join(path[:depth]), Counter())[kind] += 1
        return groups

    def to_dict(self) -> dict[str, Any]:
        return {
            "matched": len(self.pairs),
            "renamed": self.renamed,
            "added": [r.to_dict() for r in self.added],
            "removed": [r.to_dict() for r in self.removed],
            "changed": [c.to_dict() for c in self.changed],
            "io": self.io,
            "parameters": self.parameters,
            "by_scope": {k: dict(v) for k, v in sorted(self.by_scope().items())},
        }


@dataclass
class ModelDiff:
    """The diff of two models: main graph, local functions (paired by identifier), model-level facts."""

    graph: GraphDiff
    functions: dict[str, GraphDiff]  # paired functions that differ, by "domain::name"
    added_functions: list[str]
    removed_functions: list[str]
    model: list[str]  # opset imports and IR version that differ

    @property
    def identical(self) -> bool:
        return (self.graph.identical and not self.functions and not self.added_functions
                and not self.removed_functions and not self.model)

    def headline(self) -> str:
        if self.identical:
            return "no structural change"
        parts = [] if self.graph.identical else [f"graph: {self.graph.headline()}"]
        parts += [f"function {k}: {v.headline()}" for k, v in self.functions.items()]
        parts += [f"function {k} added" for k in self.added_functions]
        parts += [f"function {k} removed" for k in self.removed_functions]
        return "; ".join(parts + self.model)

    def to_dict(self) -> dict[str, Any]:
        return {
            "identical": self.identical,
            "headline": self.headline(),
            "graph": self.graph.to_dict(),
            "functions": {k: v.to_dict() for k, v in self.functions.items()},
            "added_functions": self.added_functions,
            "removed_functions": self.removed_functions,
            "model": self.model,
        }


class _Differ:
    """Runs graph diffs sharing one content cache (a weight shared by two graphs is compared once)."""

    def __init__(self) -> None:
        self.content = ContentCache()

    def graph(self, ga: ir.Graph | ir.Function, gb: ir.Graph | ir.Function) -> GraphDiff:
        a, b = GraphIndex(ga), GraphIndex(gb)
        matching = Matching(a, b)
        comparer = NodeComparer(a, b, matching.a_to_b, self.content, self.graph)
        pairs = sorted(matching.a_to_b.items(), key=lambda p: p[1])
        changed = []
        for i, j in pairs:
            found = comparer.changes(i, j)
            if found:
                changed.append(ChangedNode(_ref(a, i), _ref(b, j), tuple(found)))
        return GraphDiff(
            pairs=pairs,
            added=[_ref(b, j) for j in matching.added()],
            removed=[_ref(a, i) for i in matching.removed()],
            changed=changed,
            io=_io_changes(ga, gb),
            renamed=sum(1 for i, j in pairs if a.labels[i] != b.labels[j]),
        )


def _ref(g: GraphIndex, i: int) -> NodeRef:
    return NodeRef(g.labels[i], g.nodes[i].op_type, i)


def _io_changes(ga: ir.Graph | ir.Function, gb: ir.Graph | ir.Function) -> list[str]:
    found = []
    for side, va, vb in (("input", ga.inputs, gb.inputs), ("output", ga.outputs, gb.outputs)):
        if len(va) != len(vb):
            found.append(f"{len(va)} graph {side}s → {len(vb)}")
        for k, (x, y) in enumerate(zip(va, vb, strict=False)):
            before, after = (x.dtype, _dims(x)), (y.dtype, _dims(y))
            if before != after:
                found.append(f"graph {side} {k} ({y.name}): {_value_text(x)} → {_value_text(y)}")
    return found


def _dims(value: ir.Value) -> tuple[object, ...] | None:
    """Static dims as numbers, symbolic ones as "?": exporters and shape inference rename dim params freely."""
    return None if value.shape is None else tuple(d if isinstance(d, int) else "?" for d in value.shape)


def _value_text(value: ir.Value) -> str:
    dtype = value.dtype.name.lower() if value.dtype is not None else "?"
    return f"{dtype}{list(_dims(value) or ())}"


def as_model(model: ModelLike) -> ir.Model:
    """The ir model of a path (opened without reading weights, refused when unsafe), a Document, a ModelProto."""
    if isinstance(model, ir.Model):
        return model
    if isinstance(model, Document):
        return model.model
    if isinstance(model, onnx.ModelProto):
        return ir.serde.deserialize_model(model)
    return doc_io.load(model)


def diff(a: ModelLike, b: ModelLike) -> ModelDiff:
    """What changed from model ``a`` to model ``b``: paired by structure, names only as a hint."""
    ma, mb = as_model(a), as_model(b)
    differ = _Differ()
    graph = differ.graph(ma.graph, mb.graph)
    functions: dict[str, GraphDiff] = {}
    removed: list[str] = []
    for key, fa in ma.functions.items():
        fb = mb.functions.get(key)
        if fb is None:
            removed.append(_function_name(key))
            continue
        body = differ.graph(fa, fb)
        body.parameters = _parameter_changes(fa, fb)
        if not body.identical:
            functions[_function_name(key)] = body
    added = [_function_name(k) for k in mb.functions if k not in ma.functions]
    model = [f"opset {d or 'ai.onnx'}: {ma.opset_imports.get(d)} → {mb.opset_imports.get(d)}"
             for d in sorted(set(ma.opset_imports) | set(mb.opset_imports))
             if ma.opset_imports.get(d) != mb.opset_imports.get(d)]
    return ModelDiff(graph, functions, added, removed, model)


def _parameter_changes(fa: ir.Function, fb: ir.Function) -> list[str]:
    """A local function's attribute parameters (names and defaults) that differ: the body may be the same while
    every call site can now pass another attribute."""
    before = {name: _default(a) for name, a in fa.attributes.items()}
    after = {name: _default(a) for name, a in fb.attributes.items()}
    found = [f"attribute parameter {name} added" for name in after if name not in before]
    found += [f"attribute parameter {name} removed" for name in before if name not in after]
    found += [f"attribute parameter {name} default {before[name]!r} → {after[name]!r}"
              for name in before if name in after and before[name] != after[name]]
    return found


def _default(attr: ir.Attr) -> object:
    return None if attr.type == ir.AttributeType.UNDEFINED else attribute_key(attr)


def _function_name(key: tuple[str, str, str]) -> str:
    domain, name, overload = key
    return f"{domain}::{name}" + (f":{overload}" if overload else "")


__all__ = ["ChangedNode", "GraphDiff", "ModelDiff", "NodeRef", "diff"]
