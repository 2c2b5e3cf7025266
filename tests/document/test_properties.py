"""Property: any sequence of edits on real models undoes to the original and redoes to the edited model, and a
view that follows only the events always shows the same nodes and links as the document."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx_ir as ir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dld_jupyter.document import (
    Document,
    DocumentError,
    EdgesAdded,
    EdgesRemoved,
    Event,
    NodesAdded,
    NodesChanged,
    NodesRemoved,
)
from tests import models
from tests.document.support import snapshot

OPS = ("Relu", "Add", "Concat", "Split", "Conv", "Identity", "Clip", "Mul")
MODELS: dict[str, Callable[[], object]] = {
    "resnet": lambda: models.resnet_like(blocks=2),
    "transformer": lambda: models.transformer_like(layers=1),
}


class Mirror:
    """A view that knows the graph only through events, as the canvas does."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.nodes = {n.id for n in doc.nodes()}
        self.edges = {e.id for e in doc.edges()}
        doc.subscribe(self.apply)

    def apply(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, EdgesRemoved):
                assert set(event.edge_ids) <= self.edges, event
                self.edges -= set(event.edge_ids)
            elif isinstance(event, NodesRemoved):
                assert set(event.node_ids) <= self.nodes, event
                self.nodes -= set(event.node_ids)
            elif isinstance(event, NodesAdded):
                assert not set(event.node_ids) & self.nodes, event
                self.nodes |= set(event.node_ids)
            elif isinstance(event, NodesChanged):
                assert set(event.node_ids) <= self.nodes, event
            elif isinstance(event, EdgesAdded):
                assert not set(event.edge_ids) & self.edges, event
                self.edges |= set(event.edge_ids)

    def check(self) -> None:
        assert self.nodes == {n.id for n in self.doc.nodes()}
        assert self.edges == {e.id for e in self.doc.edges()}
        fresh = self.doc._read()  # the cached views equal views built from scratch
        assert repr(self.doc.nodes()) == repr(fresh.nodes())
        assert repr(self.doc.edges()) == repr(fresh.edges())


def _op_ids(doc: Document) -> list[str]:
    return [n.id for n in doc.nodes() if n.kind == "op"]


def _free_inputs(doc: Document) -> list[tuple[str, int]]:
    return [(n.id, t.index) for n in doc.nodes() if n.kind == "op" for t in n.inputs if t.state == "free"]


def _linked_inputs(doc: Document) -> list[tuple[str, int]]:
    return [(n.id, t.index) for n in doc.nodes() if n.kind == "op" for t in n.inputs if t.state != "free"]


def _sources(doc: Document) -> list[tuple[str, int]]:
    return [(n.id, t.index) for n in doc.nodes() if n.kind != "output" for t in n.outputs]


def _initializers(doc: Document) -> list[str]:
    return [doc.value_id(v) for v in doc.model.graph.initializers.values()]


def _edit(doc: Document, data: st.DataObject, step: int) -> None:
    kind = data.draw(st.sampled_from(EDITS), label="edit")
    kind(doc, data, step)


def _add(doc: Document, data: st.DataObject, step: int) -> None:
    doc.add_node(data.draw(st.sampled_from(OPS)), position=(step, step))


def _remove(doc: Document, data: st.DataObject, step: int) -> None:
    ids = [n.id for n in doc.nodes()]
    doc.remove_nodes(data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3, unique=True)))


def _connect(doc: Document, data: st.DataObject, step: int) -> None:
    free = _free_inputs(doc)
    if free:
        src = data.draw(st.sampled_from(_sources(doc)))
        dst = data.draw(st.sampled_from(free))
        doc.connect(src[0], src[1], dst[0], dst[1])


def _disconnect(doc: Document, data: st.DataObject, step: int) -> None:
    linked = _linked_inputs(doc)
    if linked:
        doc.disconnect(*data.draw(st.sampled_from(linked)))


def _rename(doc: Document, data: st.DataObject, step: int) -> None:
    doc.rename_node(data.draw(st.sampled_from(_op_ids(doc))), f"renamed_{step}")


def _rename_value(doc: Document, data: st.DataObject, step: int) -> None:
    values = [t.value_id for n in doc.nodes() for t in n.outputs if t.value_id]
    doc.rename_value(data.draw(st.sampled_from(values)), f"tensor_{step}")


def _attribute(doc: Document, data: st.DataObject, step: int) -> None:
    node = doc.node(data.draw(st.sampled_from(_op_ids(doc))))
    if node.attributes and data.draw(st.booleans()):
        doc.reset_attribute(node.id, data.draw(st.sampled_from(sorted(node.attributes))))
    else:
        value = data.draw(st.sampled_from([1, 0.5, [1, 1], "x"]))
        doc.set_attribute(node.id, data.draw(st.sampled_from(["axis", "alpha", "strides", "epsilon"])), value)


def _move(doc: Document, data: st.DataObject, step: int) -> None:
    ids = [n.id for n in doc.nodes()]
    chosen = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True))
    doc.move_nodes({nid: (float(step), float(i)) for i, nid in enumerate(chosen)})


def _initializer(doc: Document, data: st.DataObject, step: int) -> None:
    action = data.draw(st.sampled_from(["create", "delete", "set", "connect"]))
    inits = _initializers(doc)
    if action == "create" or not inits:
        doc.create_initializer(f"init_{step}", np.full((2,), step, np.float32))
    elif action == "delete":
        doc.delete_initializer(data.draw(st.sampled_from(inits)))
    elif action == "set":
        doc.set_initializer_value(data.draw(st.sampled_from(inits)), np.arange(step + 1, dtype=np.float32))
    elif _free_inputs(doc):
        dst = data.draw(st.sampled_from(_free_inputs(doc)))
        doc.connect_initializer(data.draw(st.sampled_from(inits)), dst[0], dst[1])


def _io(doc: Document, data: st.DataObject, step: int) -> None:
    if data.draw(st.booleans()) and _free_inputs(doc):
        dst = data.draw(st.sampled_from(_free_inputs(doc)))
        doc.add_graph_input(dst[0], dst[1], shape=[1, "N"])
    else:
        src = data.draw(st.sampled_from(_sources(doc)))
        doc.add_graph_output(src[0], src[1])


def _metadata(doc: Document, data: st.DataObject, step: int) -> None:
    if data.draw(st.booleans()):
        doc.set_metadata(data.draw(st.sampled_from(["a", "b"])), data.draw(st.sampled_from([None, "1", "2"])))
    else:
        doc.set_model_info(doc_string=f"step {step}", producer_version=str(step))


def _check(doc: Document, data: st.DataObject, step: int) -> None:
    doc.check()  # not an edit: refreshes inferred shapes shown on terminals and links


def _transaction(doc: Document, data: st.DataObject, step: int) -> None:
    with doc.transaction(f"Group {step}"):
        _add(doc, data, step)
        _connect(doc, data, step)


EDITS = (
    _add,
    _remove,
    _connect,
    _disconnect,
    _rename,
    _rename_value,
    _attribute,
    _move,
    _initializer,
    _io,
    _metadata,
    _check,
    _transaction,
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(MODELS)), data=st.data(), steps=st.integers(1, 12))
def test_undo_all_then_redo_all(name: str, data: st.DataObject, steps: int) -> None:
    doc = Document(ir.serde.deserialize_model(MODELS[name]()))  # type: ignore[arg-type]
    original = snapshot(doc.model)
    original_views = [n.id for n in doc.nodes()]
    mirror = Mirror(doc)
    for step in range(steps):
        before = snapshot(doc.model)
        history = list(doc.history)
        try:
            _edit(doc, data, step)
        except DocumentError:
            assert snapshot(doc.model) == before and doc.history == history  # refused: nothing changed
        mirror.check()
    edited = snapshot(doc.model)
    edited_views = ([n.id for n in doc.nodes()], [e.id for e in doc.edges()])
    done = doc.history_index
    while doc.can_undo:
        doc.undo()
        mirror.check()
    assert snapshot(doc.model) == original
    assert [n.id for n in doc.nodes()] == original_views
    assert not doc.dirty or done == 0
    while doc.can_redo:
        doc.redo()
        mirror.check()
    assert snapshot(doc.model) == edited
    assert ([n.id for n in doc.nodes()], [e.id for e in doc.edges()]) == edited_views
