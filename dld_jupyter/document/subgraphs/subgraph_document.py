"""Subgraph documents: a Loop/Scan body, an If branch or a GRAPHS list entry edited as a document of its own.

``doc.subgraphs.open(node_id, attribute, index=None)`` copies the body into a child document (ids stable within the
child). Values the body reads from the graphs around it stay outer references: placeholders typed like the values
they stand for, drawn as ``outer`` nodes, never graph inputs. ``confirm()`` checks the operator's contract
(subgraph_contract.py) and swaps the edited body into the node (``SetSubgraphs``: one undo step of the parent, the
old body comes back on undo). Checks run on a standalone copy where the outer references are typed graph inputs;
initializers of a body are not edited here (seed: "initializers excepted").
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Callable, Iterator
from typing import Any

import onnx
import onnx.shape_inference
import onnx_ir as ir

from dld_jupyter.document.checks.skeleton import Skeleton
from dld_jupyter.document.edits.commands import Command
from dld_jupyter.document.files import io
from dld_jupyter.document.layout.metadata import POSITIONS_KEY, encode_positions
from dld_jupyter.document.model.document import Document
from dld_jupyter.document.model.endpoints import OUTER_KEY
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.subgraphs.child_document import ChildDocument
from dld_jupyter.document.subgraphs.child_lock import register_opener
from dld_jupyter.document.subgraphs.subgraph_contract import check_contract
from dld_jupyter.document.subgraphs.subgraph_scope import (
    SetSubgraphs,
    attach_plan,
    copy_graph,
    graph_at,
    graphs_of,
    outer_names,
    outer_uses,
    scope_values,
    slot_label,
)

INITIALIZERS_REFUSED = (
    "initializers of a subgraph are not edited in its subgraph document.",
    "Use a Constant node inside the subgraph, or edit initializers in the main model.",
)


def _inferred_infos(proto: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Types by value name that shape inference of ``proto`` found, subgraphs included."""
    found: dict[str, onnx.TypeProto] = {}
    graphs = [proto.graph]
    for graph in graphs:
        for info in (*graph.input, *graph.value_info, *graph.output):
            if info.type.WhichOneof("value") is not None:
                found.setdefault(info.name, info.type)
        for node in graph.node:
            for attr in node.attribute:
                graphs.extend([attr.g] if attr.HasField("g") else list(attr.graphs))
    return found


def _from_inferred(name: str, dtype: str, shape: list[int | str] | None) -> ir.Value:
    value = ir.Value(name=name, type=ir.TensorType(ir.DataType[dtype.upper()]))
    if shape is not None:
        value.shape = ir.Shape([None if d == "?" else d for d in shape])
    return value


def outer_value_types(doc: Document, body: ir.Graph) -> dict[str, ir.Value]:
    """Typed stand-ins for the outer values ``body`` (a subgraph of ``doc``'s graph) reads: the value itself when
    it has a type and shape, else what ``doc``'s last check inferred, else shape inference of ``doc``'s check model
    now, else the value (type without shape, or nothing known)."""
    out: dict[str, ir.Value] = {}
    missing: dict[str, ir.Value] = {}
    for use in outer_uses(body):
        value = use.value
        name = value.name or ""
        if name in out or name in missing:
            continue
        dtype, shape = doc.inferred.get(doc.value_id(value), (None, None))
        if value.type is not None and value.shape is not None:
            out[name] = value
        elif dtype is not None and shape is not None:
            out[name] = _from_inferred(name, dtype, shape)
        else:
            missing[name] = value
    if missing:
        model, _ids = doc.check_input()
        infos: dict[str, onnx.TypeProto] = {}
        with contextlib.suppress(Exception):  # a model that inference refuses leaves those references as they are
            infos = _inferred_infos(onnx.shape_inference.infer_shapes(Skeleton(model).proto))
        for name, value in missing.items():
            if name in infos:
                value = ir.Value(name=name, type=ir.serde.deserialize_type_proto_for_type(infos[name]))
                value.shape = ir.serde.deserialize_type_proto_for_shape(infos[name])
            out[name] = value
    return out


def standalone_model(graph: ir.Graph, like: ir.Model) -> tuple[ir.Model, dict[ir.Node, ir.Node]]:
    """A model of its own made of a copy of ``graph``: outer references become graph inputs (typed as their
    placeholders are), opsets, IR version and local functions come from ``like``. Also returns copy node ->
    original node for the top-level nodes."""
    copy = copy_graph(graph)
    for name in outer_names(copy):
        value = next(use.value for use in outer_uses(copy) if use.value.name == name)
        copy.inputs.append(value)
    copy.opset_imports.update(like.opset_imports)
    model = ir.Model(
        copy,
        ir_version=like.ir_version,
        producer_name="dld_jupyter",
        functions=list(like.functions.values()),
    )
    return model, dict(zip(copy, graph, strict=True))


class SubgraphDocument(ChildDocument):
    """A subgraph of the op node ``owner`` (slot ``attribute`` / ``index``) of ``parent``, as a document."""

    kind = "subgraph"
    confirm_label = "Confirm Subgraph Edits"

    def __init__(
        self, parent: Document, node: ir.Node, attribute: str, index: int | None, model: ir.Model, title: str
    ) -> None:
        self.owner, self.attribute, self.index = node, attribute, index
        super().__init__(parent, model, title)

    @classmethod
    def open_in(cls, parent: Document, node_id: str, attribute: str, index: int | None = None) -> SubgraphDocument:
        what = f"Open subgraph {slot_label(attribute, index)}"
        if isinstance(parent, ChildDocument) and parent.closed:
            raise DocumentError(what, f"{parent.title} is closed.", "Open it again from its parent document.")
        node = parent.ir_node(node_id)
        if node is None:
            raise DocumentError(what, f"node {node_id!r} is not in the graph.", "Use an op node id from doc.nodes().")
        body = graph_at(node, attribute, index, what)
        for child in parent.open_children:
            if isinstance(child, SubgraphDocument) and (child.owner, child.attribute, child.index) == (
                node,
                attribute,
                index,
            ):
                raise DocumentError(what, f"{child.title} is open already.", "Use that document (doc.open_children).")
        copy = copy_graph(body, outer_value_types(parent, body))
        copy.meta[OUTER_KEY] = list(dict.fromkeys(use.value for use in outer_uses(copy)))
        copy.opset_imports.update(parent.model.opset_imports)
        model = ir.Model(
            copy,
            ir_version=parent.model.ir_version,
            producer_name="dld_jupyter",
            functions=list(parent.model.functions.values()),
        )
        positions = body.metadata_props.get(POSITIONS_KEY)
        if positions:
            model.metadata_props[POSITIONS_KEY] = positions
        prefix = parent.title if isinstance(parent, ChildDocument) else parent.name
        title = f"{prefix} / {node.name or node_id} / {slot_label(attribute, index)}"
        return cls(parent, node, attribute, index, model, title)

    # ------------------------------------------------------------ the ChildDocument contract
    @property
    def lock_reason(self) -> str:
        node = self.owner.name or self.parent.node_id(self.owner)
        slot = slot_label(self.attribute, self.index)
        return f"Subgraph '{slot}' of node '{node}' is open for editing: confirm or close it first."

    def validate(self) -> None:
        graph = self.model.graph
        opset = self.parent.model.opset_imports.get("", 1)
        own = self.parent.model.opset_imports
        extra = {d or "ai.onnx": v for d, v in self.model.opset_imports.items() if own.get(d) != v}
        if extra:
            listed = ", ".join(f"{d} {v}" for d, v in sorted(extra.items()))
            why = f"the subgraph imports opsets its model does not ({listed}); the model's imports cover its bodies."
            raise DocumentError(self.confirm_label, why, "Set those opset imports in the model itself, then confirm.")
        check_contract(self.owner, self.attribute, graph, opset, self._inferred_dtypes())
        attach_plan(graph, scope_values(self.parent.model.graph), self.confirm_label)

    def write_back_command(self) -> Command:
        body = copy_graph(self.model.graph)
        body.name = self.model.graph.name
        text = encode_positions(self.model.graph, self._ctx.ids, self._ctx.positions)
        if text:
            body.metadata_props[POSITIONS_KEY] = text
        attr = self.owner.attributes[self.attribute]
        graphs = list(graphs_of(self.owner, self.attribute, self.confirm_label))
        graphs[self.index or 0] = body
        return SetSubgraphs(self.owner, self.attribute, tuple(graphs), attr.type == ir.AttributeType.GRAPHS)

    def _inferred_dtypes(self) -> dict[str, ir.DataType]:
        """Element types by value name that a check of the standalone body infers (what it can of a broken one)."""
        from dld_jupyter.document.checks.checks import check_model

        inferred = check_model(*self.check_input(), structure=False).inferred
        found: dict[str, ir.DataType] = {}
        for name, info in inferred.items():
            with contextlib.suppress(KeyError, TypeError):
                found[name] = ir.DataType[str(info[0]).upper()]
        return found

    # ------------------------------------------------------------ subgraph specifics
    @property
    def owner_id(self) -> str:
        """The parent's id of the node that holds this subgraph."""
        return self.parent.node_id(self.owner)

    def outer_references(self) -> list[str]:
        """Names of the outer-scope values the body reads now (nested subgraphs included). Each value it read
        when opened stays drawn as an ``outer`` node, linked to its readers, even while nothing reads it."""
        return outer_names(self.model.graph)

    def check_input(self) -> tuple[ir.Model, Callable[[ir.Node], str | None]]:
        model, originals = standalone_model(self.model.graph, self.model)
        ids = {copy: self.node_id(node) for copy, node in originals.items()}
        return model, ids.get

    def save_copy(self, path: str | os.PathLike[str]) -> None:
        """Write the body as a standalone model (outer references as typed graph inputs) to ``path``, atomically:
        what profiling a subgraph document runs. The document and its parent are not changed."""
        model, _ids = self.check_input()
        text = encode_positions(self.model.graph, self._ctx.ids, self._ctx.positions)
        io.save(model, pathlib.Path(path), {POSITIONS_KEY: text} if text else {})

    def _initializer_state(self) -> tuple[tuple[str, int, int], ...]:
        return tuple((n, id(v), id(v.const_value)) for n, v in self.model.graph.initializers.items())

    @contextlib.contextmanager
    def transaction(self, label: str) -> Iterator[None]:
        """A Document transaction that refuses (and rolls back) any change to the body's initializers."""
        before = None if self._history.in_transaction else self._initializer_state()
        with super().transaction(label):
            yield
            if before is not None and self._initializer_state() != before:
                raise DocumentError(label, *INITIALIZERS_REFUSED)


def _open(parent: Document, node_id: str, attribute: str, index: int | None = None) -> Any:
    return SubgraphDocument.open_in(parent, node_id, attribute, index)


register_opener("subgraph", _open)
