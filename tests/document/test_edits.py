"""Every edit of the contract: the change, its events, undo back to the exact model, redo to the same ids."""

from __future__ import annotations

import pathlib
from collections.abc import Callable

import numpy as np
import onnx
import onnx_ir as ir
import pytest

from dld_jupyter.document import (
    DirtyChanged,
    Document,
    DocumentError,
    EdgesAdded,
    EdgesRemoved,
    Event,
    InitializersChanged,
    ModelInfoChanged,
    NodesAdded,
    NodesChanged,
    NodesMoved,
    NodesRemoved,
)
from tests.document.support import snapshot, tiny_model


class Recorder:
    def __init__(self, doc: Document) -> None:
        self.batches: list[list[Event]] = []
        self.unsubscribe = doc.subscribe(self.batches.append)

    def last(self, kind: type) -> Event:
        found = [e for e in self.batches[-1] if isinstance(e, kind)]
        assert found, f"no {kind.__name__} in {self.batches[-1]}"
        return found[0]


@pytest.fixture
def doc(tmp_path: pathlib.Path) -> Document:
    onnx.save(tiny_model(), tmp_path / "tiny.onnx")
    return Document.open(tmp_path / "tiny.onnx")


def by_name(doc: Document, name: str) -> str:
    return next(n.id for n in doc.nodes() if n.name == name)


def edge_ids(doc: Document) -> list[str]:
    return [e.id for e in doc.edges()]


def undo_redo(doc: Document, edit: Callable[[], object]) -> object:
    """Run ``edit``; check that undo restores the exact model and redo the exact edited one."""
    before = snapshot(doc.model)
    views_before = [n.id for n in doc.nodes()], edge_ids(doc)
    result = edit()
    after = snapshot(doc.model)
    views_after = [n.id for n in doc.nodes()], edge_ids(doc)
    doc.undo()
    assert snapshot(doc.model) == before
    assert ([n.id for n in doc.nodes()], edge_ids(doc)) == views_before
    doc.redo()
    assert snapshot(doc.model) == after
    assert ([n.id for n in doc.nodes()], edge_ids(doc)) == views_after
    return result


def test_read_model_of_opened_file(doc: Document) -> None:
    nodes = doc.nodes()
    assert [(n.kind, n.name) for n in nodes] == [("input", "x"), ("op", "relu"), ("op", "add"), ("output", "y")]
    add = doc.node(by_name(doc, "add"))
    assert [(t.name, t.state) for t in add.inputs] == [("A", "linked"), ("B", "initializer")]
    assert add.inputs[1].dtype == "float" and add.inputs[1].shape == [4]
    ids = {n.name: n.id for n in nodes}
    assert edge_ids(doc) == [
        f"{ids['x']}:0->{ids['relu']}:0",
        f"{ids['relu']}:0->{ids['add']}:0",
        f"{ids['add']}:0->{ids['y']}:0",
    ]
    assert ids["x"].startswith("i") and ids["y"].startswith("o")
    assert not doc.dirty and doc.history == [] and not doc.can_undo


def test_add_node_generates_names_and_events(doc: Document) -> None:
    rec = Recorder(doc)
    nid = undo_redo(doc, lambda: doc.add_node("Conv", position=(10, 20)))
    view = doc.node(str(nid))
    assert view.name == "Conv_0" and view.op_type == "Conv" and view.position == (10.0, 20.0)
    assert [t.name for t in view.inputs] == ["X", "W", "B"] and view.inputs[2].optional
    assert [t.state for t in view.outputs] == ["free"]
    assert doc.add_node("Conv") != nid and doc.node(doc.add_node("Conv")).name == "Conv_2"
    first = rec.batches[0]
    assert first[0] == NodesAdded([str(nid)]) and isinstance(first[1], NodesMoved)
    assert first[-1] == DirtyChanged(True)
    assert rec.batches[1][0] == NodesRemoved([str(nid)])  # the undo
    assert doc.history == ["Add Conv", "Add Conv", "Add Conv"] and doc.history_index == 3


def test_add_node_refusals_leave_model_unchanged(doc: Document) -> None:
    before = snapshot(doc.model)
    refused = (("NoSuchOp",), ("Relu", "com.example"), ("Relu", "", "9bad"), ("Relu", "", "relu"), ("Relu", "", "int"))
    for args in refused:
        with pytest.raises(DocumentError):
            doc.add_node(*args)
    assert snapshot(doc.model) == before and doc.history == []


def test_contrib_op_in_new_model() -> None:
    doc = Document.new(opset=21, contrib=True)
    nid = doc.add_node("FusedMatMul", "com.microsoft")
    assert doc.node(nid).domain == "com.microsoft" and len(doc.node(nid).inputs) == 2


def test_remove_node_with_users_removes_its_links(doc: Document) -> None:
    relu, add = by_name(doc, "relu"), by_name(doc, "add")
    rec = Recorder(doc)
    undo_redo(doc, lambda: doc.remove_nodes([relu]))
    assert relu not in [n.id for n in doc.nodes()]
    assert doc.node(add).inputs[0].state == "free"
    assert len(edge_ids(doc)) == 1  # add -> y
    events = rec.batches[0]
    removed = next(e for e in events if isinstance(e, EdgesRemoved))
    assert len(removed.edge_ids) == 2
    assert NodesRemoved([relu]) in events and NodesChanged in {type(e) for e in events}
    assert events.index(removed) < events.index(NodesRemoved([relu]))


def test_remove_output_producer_and_io_nodes(doc: Document) -> None:
    add, x = by_name(doc, "add"), by_name(doc, "x")
    undo_redo(doc, lambda: doc.remove_nodes([add]))
    assert [n.kind for n in doc.nodes()] == ["input", "op"]  # the graph output went with its producer
    doc.undo()
    undo_redo(doc, lambda: doc.remove_nodes([x]))
    assert doc.node(by_name(doc, "relu")).inputs[0].state == "free"
    assert len(doc.model.graph.inputs) == 0


def test_connect_one_link_per_input_and_initializer_replacement(doc: Document) -> None:
    relu, add = by_name(doc, "relu"), by_name(doc, "add")
    with pytest.raises(DocumentError, match="already linked"):
        doc.connect(relu, 0, add, 0)
    rec = Recorder(doc)
    undo_redo(doc, lambda: doc.connect(relu, 0, add, 1))  # replaces the initializer binding
    assert doc.node(add).inputs[1].state == "linked"
    assert EdgesAdded([f"{relu}:0->{add}:1"]) in rec.batches[0]


def test_connect_refuses_cycles(doc: Document) -> None:
    relu = by_name(doc, "relu")
    mul = doc.add_node("Mul")
    doc.connect(relu, 0, mul, 0)
    with pytest.raises(DocumentError, match="cycle"):
        doc.connect(mul, 0, mul, 1)
    doc.disconnect(relu, 0)
    with pytest.raises(DocumentError, match="cycle"):
        doc.connect(mul, 0, relu, 0)


def test_variadic_inputs_grow_with_a_free_terminal(doc: Document) -> None:
    relu = by_name(doc, "relu")
    concat = doc.add_node("Concat")
    assert [(t.index, t.variadic, t.state) for t in doc.node(concat).inputs] == [(0, True, "free")]
    doc.connect(relu, 0, concat, 0)
    undo_redo(doc, lambda: doc.connect(relu, 0, concat, 1))
    assert [(t.index, t.state) for t in doc.node(concat).inputs] == [(0, "linked"), (1, "linked"), (2, "free")]
    with pytest.raises(DocumentError):
        doc.connect(relu, 0, concat, 5)  # no holes in a variadic list
    undo_redo(doc, lambda: doc.disconnect(concat, 0))
    assert len(doc.model.graph.node(2).inputs) == 1  # the variadic slot is removed, not emptied


def test_optional_inputs_and_trailing_trim(doc: Document) -> None:
    relu = by_name(doc, "relu")
    clip = doc.add_node("Clip")
    doc.connect(relu, 0, clip, 0)
    bound = doc.create_initializer("hi", np.array(6.0, np.float32))
    undo_redo(doc, lambda: doc.connect_initializer(bound, clip, 2))
    node = doc.model.graph.node(2)
    assert node.inputs[1] is None and node.inputs[2] is not None
    assert [t.state for t in doc.node(clip).inputs] == ["linked", "free", "initializer"]
    undo_redo(doc, lambda: doc.disconnect(clip, 2))
    assert len(node.inputs) == 1


def test_variadic_outputs_grow_on_connect(doc: Document) -> None:
    relu = by_name(doc, "relu")
    split = doc.add_node("Split")
    assert len(doc.model.graph.node(2).outputs) == 1
    doc.connect(relu, 0, split, 0)
    concat = doc.add_node("Concat")
    with pytest.raises(DocumentError):
        doc.connect(split, 2, concat, 0)  # terminal 2 is not shown yet
    undo_redo(doc, lambda: doc.connect(split, 1, concat, 0))
    node = doc.model.graph.node(2)
    assert len(node.outputs) == 2 and all(v.name for v in node.outputs)
    assert [t.state for t in doc.node(split).outputs] == ["free", "linked", "free"]


def test_backward_link_keeps_topological_order(doc: Document) -> None:
    neg = doc.add_node("Neg")  # appended after 'add'
    relu = by_name(doc, "relu")
    doc.disconnect(relu, 0)
    x = by_name(doc, "x")
    doc.connect(x, 0, neg, 0)
    undo_redo(doc, lambda: doc.connect(neg, 0, relu, 0))
    order = [n.name for n in doc.model.graph]
    assert order.index("Neg_0") < order.index("relu")


def test_graph_input_and_output(doc: Document) -> None:
    add = by_name(doc, "add")
    mul = doc.add_node("Mul")
    iid = undo_redo(doc, lambda: doc.add_graph_input(mul, 1, name="scale", dtype="float16", shape=[1, "N"]))
    view = doc.node(str(iid))
    assert view.kind == "input" and view.name == "scale"
    assert view.outputs[0].dtype == "float16" and view.outputs[0].shape == [1, "N"]
    doc.connect(add, 0, mul, 0)
    oid = undo_redo(doc, lambda: doc.add_graph_output(mul, 0, name="z"))
    assert doc.node(str(oid)).name == "z" and doc.node(str(oid)).inputs[0].state == "linked"
    with pytest.raises(DocumentError):
        doc.add_graph_output(mul, 0)
    with pytest.raises(DocumentError):
        doc.add_graph_input(mul, 1)  # already linked
    with pytest.raises(DocumentError):
        doc.disconnect(str(oid), 0)


def test_rename_node_and_value(doc: Document) -> None:
    relu = by_name(doc, "relu")
    rec = Recorder(doc)
    undo_redo(doc, lambda: doc.rename_node(relu, "first_relu"))
    assert doc.node(relu).name == "first_relu" and NodesChanged([relu]) in rec.batches[0]
    for bad in ("add", "1x", "a-b", "while", ""):
        with pytest.raises(DocumentError):
            doc.rename_node(relu, bad)
    value_id = doc.node(relu).outputs[0].value_id
    assert value_id is not None
    rec.batches.clear()
    undo_redo(doc, lambda: doc.rename_value(value_id, "activated"))
    removed, added = rec.last(EdgesRemoved), rec.last(EdgesAdded)
    assert isinstance(removed, EdgesRemoved) and isinstance(added, EdgesAdded)
    assert removed.edge_ids == added.edge_ids  # same links, new label
    assert [e.value_name for e in doc.edges()][1] == "activated"
    with pytest.raises(DocumentError):
        doc.rename_value(value_id, "b")
    bias = doc.node(by_name(doc, "add")).inputs[1].value_id
    assert bias is not None
    undo_redo(doc, lambda: doc.rename_value(bias, "bias"))
    assert "bias" in doc.model.graph.initializers


def test_set_and_reset_attributes_typed_by_schema(doc: Document) -> None:
    conv = doc.add_node("Conv")
    undo_redo(doc, lambda: doc.set_attribute(conv, "strides", [2, 2]))
    undo_redo(doc, lambda: doc.set_attribute(conv, "auto_pad", "SAME_UPPER"))
    assert doc.node(conv).attributes == {"strides": [2, 2], "auto_pad": "SAME_UPPER"}
    for name, value in (("strides", [1.5]), ("group", 1.5), ("auto_pad", 3), ("nope", 1)):
        with pytest.raises(DocumentError):
            doc.set_attribute(conv, name, value)
    undo_redo(doc, lambda: doc.reset_attribute(conv, "strides"))
    assert "strides" not in doc.node(conv).attributes
    const = doc.add_node("Constant")
    undo_redo(doc, lambda: doc.set_attribute(const, "value", np.arange(6, dtype=np.int64).reshape(2, 3)))
    value = doc.node(const).attributes["value"]
    assert isinstance(value, np.ndarray) and value.shape == (2, 3)
    with pytest.raises(DocumentError):
        doc.reset_attribute(const, "value_float")  # not set


def test_graph_attribute_and_composite(doc: Document) -> None:
    branch = ir.Graph([], [], nodes=[], name="then")
    node = doc.add_node("If")
    doc.set_attribute(node, "then_branch", branch)
    doc.set_attribute(node, "else_branch", ir.Graph([], [], nodes=[], name="else"))
    view = doc.node(node)
    assert view.is_composite and view.subgraphs == ["then_branch", "else_branch"]
    with pytest.raises(DocumentError):
        doc.reset_attribute(node, "then_branch")  # required


def test_move_nodes_and_positions_survive_save(doc: Document, tmp_path: pathlib.Path) -> None:
    relu, x = by_name(doc, "relu"), by_name(doc, "x")
    rec = Recorder(doc)
    undo_redo(doc, lambda: doc.move_nodes({relu: (1.5, 2.5), x: (0, -10)}))
    assert rec.batches[0][0] == NodesMoved({relu: (1.5, 2.5), x: (0.0, -10.0)})
    with pytest.raises(DocumentError):
        doc.move_nodes({relu: (float("nan"), 0)})
    doc.save(tmp_path / "moved.onnx")
    again = Document.open(tmp_path / "moved.onnx")
    assert {n.name: n.position for n in again.nodes()}["relu"] == (1.5, 2.5)
    assert {n.name: n.position for n in again.nodes()}["x"] == (0.0, -10.0)


def test_initializers(doc: Document) -> None:
    rec = Recorder(doc)
    vid = undo_redo(doc, lambda: doc.create_initializer("w", np.ones((2, 2), np.float32)))
    assert isinstance(rec.batches[0][0], InitializersChanged)
    with pytest.raises(DocumentError):
        doc.create_initializer("w", [1])
    with pytest.raises(DocumentError):
        doc.create_initializer("ragged", [[1], [1, 2]])
    undo_redo(doc, lambda: doc.set_initializer_value(str(vid), np.zeros(3, np.int64)))
    assert doc.model.graph.initializers["w"].shape == ir.Shape([3])
    bias = doc.node(by_name(doc, "add")).inputs[1].value_id
    assert bias is not None
    undo_redo(doc, lambda: doc.delete_initializer(bias))
    assert doc.node(by_name(doc, "add")).inputs[1].state == "free"
    doc.undo()
    relu = by_name(doc, "relu")
    with pytest.raises(DocumentError):
        doc.connect_initializer(str(vid), by_name(doc, "add"), 0)  # linked to a node
    undo_redo(doc, lambda: doc.connect_initializer(str(vid), by_name(doc, "add"), 1))  # switch initializer
    with pytest.raises(DocumentError):
        doc.delete_initializer(relu)


def test_metadata_and_model_info(doc: Document) -> None:
    rec = Recorder(doc)
    undo_redo(doc, lambda: doc.set_metadata("author", "me"))
    assert doc.model.metadata_props["author"] == "me"
    assert isinstance(rec.batches[0][0], ModelInfoChanged)
    undo_redo(doc, lambda: doc.set_metadata("author", None))
    with pytest.raises(DocumentError):
        doc.set_metadata("dld.positions", "{}")
    undo_redo(doc, lambda: doc.set_model_info(producer_name="me", doc_string="d", model_version=3))
    assert doc.model.producer_name == "me" and doc.model.model_version == 3
    undo_redo(doc, lambda: doc.set_model_info(opset_imports={"": 17, "com.microsoft": 1}))
    with pytest.raises(DocumentError, match="unknown field"):
        doc.set_model_info(producer="x")


def test_transaction_is_one_step_and_rolls_back(doc: Document) -> None:
    rec = Recorder(doc)
    with doc.transaction("Two nodes"):
        a = doc.add_node("Relu")
        doc.add_node("Neg")
        doc.connect(a, 0, by_name(doc, "add"), 1)
    assert doc.history == ["Two nodes"] and len(rec.batches) == 1
    doc.undo()
    assert len(doc.nodes()) == 4
    before = snapshot(doc.model)
    rec.batches.clear()
    with pytest.raises(DocumentError), doc.transaction("Broken"):
        doc.add_node("Relu")
        doc.add_node("NoSuchOp")
    assert snapshot(doc.model) == before and rec.batches == [] and doc.history == ["Two nodes"]
    assert doc.can_redo
    with doc.transaction("Partly"):  # a refused edit caught inside a transaction undoes only itself
        doc.add_node("Relu")
        with pytest.raises(DocumentError):
            doc.rename_node(by_name(doc, "relu"), "add")
    assert doc.history == ["Partly"] and len(doc.nodes()) == 5 and not doc.can_redo


def test_save_point_and_dirty(doc: Document, tmp_path: pathlib.Path) -> None:
    rec = Recorder(doc)
    doc.add_node("Relu")
    assert doc.dirty
    doc.save()
    assert not doc.dirty and rec.batches[-1] == [DirtyChanged(False)]
    doc.undo()
    assert doc.dirty and DirtyChanged(True) in rec.batches[-1]
    doc.redo()
    assert not doc.dirty
    doc.undo()
    doc.add_node("Neg")  # the saved state is gone from history
    doc.undo()
    assert doc.dirty
    with pytest.raises(DocumentError):
        Document.new().save()
    rec.unsubscribe()
    doc.add_node("Relu")
    assert rec.batches[-1] != [] and len(rec.batches) == 7


def test_new_model_loads_in_onnxruntime(tmp_path: pathlib.Path) -> None:
    import onnxruntime as ort

    for opset in (7, 13, 21, 26):
        doc = Document.new(opset=opset)
        relu = doc.add_node("Relu")
        doc.add_graph_input(relu, 0, name="x", shape=[2])
        doc.add_graph_output(relu, 0, name="y")
        doc.save(tmp_path / f"new{opset}.onnx")
        session = ort.InferenceSession(str(tmp_path / f"new{opset}.onnx"), providers=["CPUExecutionProvider"])
        (out,) = session.run(None, {"x": np.array([-1.0, 2.0], np.float32)})
        assert out.tolist() == [0.0, 2.0]
    with pytest.raises(DocumentError):
        Document.new(opset=0)


def test_save_lowers_ir_version_for_onnxruntime(tmp_path: pathlib.Path) -> None:
    import onnxruntime as ort

    proto = tiny_model()
    proto.ir_version = 14
    onnx.save(proto, tmp_path / "ir14.onnx")
    Document.open(tmp_path / "ir14.onnx").save(tmp_path / "ir13.onnx")
    assert onnx.load(tmp_path / "ir13.onnx").ir_version == 13
    ort.InferenceSession(str(tmp_path / "ir13.onnx"), providers=["CPUExecutionProvider"])


def test_check_and_arrange(doc: Document) -> None:
    mul = doc.add_node("Mul")
    diagnostics = doc.check()
    assert any(d.node_id == mul for d in diagnostics)
    relu_out = doc.node(by_name(doc, "relu")).outputs[0].value_id
    assert doc.inferred[str(relu_out)] == ("float", [1, 4])
    rec = Recorder(doc)
    doc.arrange()
    assert all(n.position is not None for n in doc.nodes())
    assert doc.history[-1] == "Arrange nodes" and isinstance(rec.batches[0][0], NodesMoved)
    doc.undo()
    assert all(n.position is None for n in doc.nodes())


def test_values_read_by_subgraphs(tmp_path: pathlib.Path) -> None:
    from onnx import TensorProto, helper

    branch = helper.make_graph(
        [helper.make_node("Neg", ["r"], ["n"], name="inner_neg")],
        "then",
        [],
        [helper.make_tensor_value_info("n", TensorProto.FLOAT, [1, 4])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["m"], name="inner_id")],
        "else",
        [],
        [helper.make_tensor_value_info("m", TensorProto.FLOAT, [1, 4])],
    )
    proto = tiny_model()
    proto.graph.input.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
    proto.graph.node.append(helper.make_node("If", ["c"], ["z"], name="branch", then_branch=branch, else_branch=other))
    proto.graph.output.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4]))
    onnx.save(proto, tmp_path / "if.onnx")
    doc = Document.open(tmp_path / "if.onnx")
    relu, branch_id = by_name(doc, "relu"), by_name(doc, "branch")
    assert doc.node(branch_id).is_composite and doc.node(branch_id).subgraphs == ["else_branch", "then_branch"]
    before = snapshot(doc.model)
    with pytest.raises(DocumentError, match="inner_neg"):
        doc.remove_nodes([relu])
    with pytest.raises(DocumentError, match="inner_id"):
        doc.remove_nodes([by_name(doc, "x")])
    assert snapshot(doc.model) == before
    doc.disconnect(relu, 0)
    with pytest.raises(DocumentError, match="cycle"):
        doc.connect(branch_id, 0, relu, 0)  # the If's body reads relu's output
    doc.undo()
    undo_redo(doc, lambda: doc.remove_nodes([relu, branch_id]))
    doc.undo()
    undo_redo(doc, lambda: doc.rename_value(str(doc.node(relu).outputs[0].value_id), "renamed"))
    doc.save(tmp_path / "renamed.onnx")
    saved = onnx.load(tmp_path / "renamed.onnx")
    then = next(a.g for a in saved.graph.node[2].attribute if a.name == "then_branch")
    assert then.node[0].input[0] == "renamed"  # the subgraph follows the rename


def test_ir_node_follows_removal_and_undo(doc: Document) -> None:
    node_id = next(n.id for n in doc.nodes() if n.kind == "op")
    node = doc.ir_node(node_id)
    assert node is not None and doc.node_id(node) == node_id
    doc.remove_nodes([node_id])
    assert doc.ir_node(node_id) is None  # removed: not in the graph any more
    doc.undo()
    assert doc.ir_node(node_id) is node
    assert doc.ir_node("no-such-id") is None
