"""Subgraph documents on a real export: the scripted GRU (tests/data/real/gru_scripted.onnx, TorchScript exporter)
is a Loop over time steps whose body holds an If (masked steps keep the state). Open the body and the nested
branch, edit, confirm, save, reload, run in onnxruntime; the lock, the contract, undo of a confirm."""

from __future__ import annotations

import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.document import Document, DocumentError, EdgesAdded, EdgesRemoved, SubgraphDocument, SubgraphSlot
from dld_jupyter.document.events import Event

GRU = pathlib.Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted.onnx"
LOCK = "Subgraph 'body' of node '/Loop' is open for editing: confirm or close it first."
RNG = np.random.default_rng(7)
FEED = {
    "x": RNG.standard_normal((6, 3, 8)).astype(np.float32),
    "mask": np.array([1, 0, 1, 1, 0, 1], np.float32),  # steps 1 and 4 take the else branch
    "h0": RNG.standard_normal((3, 16)).astype(np.float32),
}


def run(path: pathlib.Path) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, FEED)[0])


def saved(doc: Document, folder: pathlib.Path, name: str) -> pathlib.Path:
    path = folder / f"{name}.onnx"
    doc.save_copy(path)
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    return path


def op(doc: Document, op_type: str, name: str | None = None) -> str:
    return next(n.id for n in doc.nodes() if n.op_type == op_type and (name is None or n.name == name))


def body_names(doc: Document, loop_id: str) -> list[str | None]:
    node = doc.ir_node(loop_id)
    assert node is not None
    return [n.name for n in node.attributes["body"].as_graph()]


@pytest.fixture
def doc() -> Document:
    return Document.open(GRU)


def test_open_the_loop_body_outer_references_are_outer_nodes_not_inputs(doc: Document) -> None:
    loop = op(doc, "Loop")
    assert doc.subgraph_slots(loop) == [SubgraphSlot("body", None, "sub_graph", 60)]
    body = doc.open_subgraph(loop, "body")
    assert isinstance(body, SubgraphDocument) and body.kind == "subgraph" and body.parent is doc
    assert body.title == "gru_scripted / /Loop / body" and body.owner_id == loop
    assert doc.read_only == LOCK and doc.open_children == [body] and body.read_only is None
    nodes = body.nodes()
    assert [n.name for n in nodes if n.kind == "input"] == ["t.1", "cond", "h.31"]  # the Loop's contract only
    outer = {n.name: n for n in nodes if n.kind == "outer"}
    assert set(outer) == set(body.outer_references())
    assert {"x", "mask", "x2h.weight", "h2h.bias"} <= set(outer)
    assert outer["x"].outputs[0].dtype == "float" and outer["x"].outputs[0].shape == ["steps", "batch", 8]
    assert outer["/Constant_1_output_0"].outputs[0].shape == []  # typed by inference of the parent
    readers = [e for e in body.edges() if e.src == outer["x"].id]
    assert [body.node(e.dst).name for e in readers] == ["/Gather_1"]
    assert body.node(outer["x"].id).kind == "outer"
    assert body.check() == []  # the standalone copy (outer references as typed inputs) is clean
    body.arrange()
    assert all(n.position is not None for n in body.nodes())


def test_parent_is_locked_while_the_body_is_open(doc: Document) -> None:
    loop = op(doc, "Loop")
    gather = op(doc, "Gather", "/Gather")
    body = doc.open_subgraph(loop, "body")
    for edit in (lambda: doc.rename_node(gather, "g"), lambda: doc.remove_nodes([loop]), doc.arrange):
        with pytest.raises(DocumentError) as refused:
            edit()
        assert refused.value.why == LOCK
    with pytest.raises(DocumentError, match="open already"):
        doc.open_subgraph(loop, "body")
    with pytest.raises(DocumentError, match="not saved on its own"):
        body.save()
    body.close()
    assert doc.read_only is None
    doc.rename_node(gather, "g")


def test_semantics_preserving_body_edit_confirm_save_reload(doc: Document, tmp_path: pathlib.Path) -> None:
    expected = run(GRU)
    loop = op(doc, "Loop")
    body = doc.open_subgraph(loop, "body")
    split = op(body, "SplitToSequence", "/SplitToSequence")
    gemm = op(body, "Gemm", "/x2h/Gemm")
    body.rename_node(op(body, "If"), "MaskedStep")  # rename
    identity = body.add_node("Identity", name="GatesIdentity")  # add a node
    body.disconnect(split, 0)  # rewire: the gates reach SplitToSequence through the Identity
    body.connect(gemm, 0, identity, 0)
    body.connect(identity, 0, split, 0)
    assert body.check() == []
    steps = len(doc.history)
    body.confirm()
    assert doc.history[-1] == "Confirm Subgraph Edits" and len(doc.history) == steps + 1
    assert not body.dirty and doc.dirty and not body.closed
    body.close()
    doc.save(tmp_path / "gru_edited.onnx")
    reloaded = onnx.load(str(tmp_path / "gru_edited.onnx"))
    onnx.checker.check_model(reloaded, full_check=True)
    loop_proto = next(n for n in reloaded.graph.node if n.op_type == "Loop")
    body_proto = loop_proto.attribute[0].g
    names = [n.name for n in body_proto.node]
    assert "MaskedStep" in names and "GatesIdentity" in names and "/If" not in names
    split_proto = next(n for n in body_proto.node if n.name == "/SplitToSequence")
    assert split_proto.input[0] == next(n for n in body_proto.node if n.name == "GatesIdentity").output[0]
    np.testing.assert_allclose(run(tmp_path / "gru_edited.onnx"), expected, rtol=1e-6, atol=1e-6)
    again = Document.open(tmp_path / "gru_edited.onnx")
    assert "MaskedStep" in body_names(again, op(again, "Loop"))


def test_nested_if_branch_semantics_changing_edit_and_undo_of_the_confirm(
    doc: Document, tmp_path: pathlib.Path
) -> None:
    original = run(GRU)
    loop = op(doc, "Loop")
    old_body = body_names(doc, loop)
    body = doc.open_subgraph(loop, "body")
    branch = body.open_subgraph(op(body, "If"), "else_branch")  # nested: opened from the body's document
    assert branch.parent is body and branch.title == "gru_scripted / /Loop / body / /If / else_branch"
    assert body.read_only is not None and "else_branch" in body.read_only and doc.read_only == LOCK
    assert branch.outer_references() == ["h.31"]  # the Loop body's state, read from the enclosing body
    assert [n.kind for n in branch.nodes()] == ["outer", "op", "op", "output"]
    constant = op(branch, "Constant")
    branch.set_attribute(constant, "value", np.array(0.5, np.float32))  # masked steps now halve the state
    with pytest.raises(DocumentError, match="open for editing"):
        body.confirm()  # the nested branch is still open
    branch.confirm()
    assert body.history[-1] == "Confirm Subgraph Edits"
    branch.close()
    body.confirm()
    body.close()
    changed = run(saved(doc, tmp_path, "halved"))
    assert not np.allclose(changed, original, atol=1e-4)
    assert doc.undo() == "Confirm Subgraph Edits"  # the old body is back
    assert body_names(doc, loop) == old_body
    np.testing.assert_allclose(run(saved(doc, tmp_path, "undone")), original, rtol=1e-6, atol=1e-6)
    assert doc.redo() == "Confirm Subgraph Edits"
    np.testing.assert_allclose(run(saved(doc, tmp_path, "redone")), changed, rtol=1e-6, atol=1e-6)


def test_the_loop_contract_is_checked_on_confirm_and_a_refusal_changes_nothing(doc: Document) -> None:
    loop = op(doc, "Loop")
    before = doc.ir_node(loop).attributes["body"].as_graph()  # type: ignore[union-attr]
    history = list(doc.history)
    body = doc.open_subgraph(loop, "body")
    condition_out = next(n.id for n in body.nodes() if n.kind == "output")
    body.remove_nodes([condition_out])
    with pytest.raises(DocumentError, match=r"the body has 1 outputs; Loop '/Loop' .* needs 2"):
        body.confirm()
    body.undo()
    body.add_graph_input(body.add_node("Abs"), 0, "extra", "float", [1])
    with pytest.raises(DocumentError, match=r"has 4 inputs; Loop '/Loop' \(iteration_num, condition and 1"):
        body.confirm()
    assert doc.history == history and doc.ir_node(loop).attributes["body"].as_graph() is before  # type: ignore[union-attr]


def test_if_branch_contract_no_inputs_matching_outputs(doc: Document) -> None:
    body = doc.open_subgraph(op(doc, "Loop"), "body")
    then = body.open_subgraph(op(body, "If"), "then_branch")
    add = op(then, "Add", "/Add_6")
    then.add_graph_input(then.add_node("Abs"), 0, "stray", "float", [1])
    with pytest.raises(DocumentError, match="an If branch"):
        then.confirm()
    then.undo()
    cast = then.add_node("Cast")
    then.set_attribute(cast, "to", 7)
    then.connect(add, 0, cast, 0)
    out = next(n.id for n in then.nodes() if n.kind == "output")
    then.remove_nodes([out])
    then.add_graph_output(cast, 0, "as_int")
    with pytest.raises(DocumentError, match="int64 but output 0 of the else_branch is float"):
        then.confirm()


def test_initializers_are_not_edited_in_a_subgraph_document(doc: Document) -> None:
    body = doc.open_subgraph(op(doc, "Loop"), "body")
    history = list(body.history)
    with pytest.raises(DocumentError, match="initializers of a subgraph are not edited"):
        body.create_initializer("w", np.zeros(2, np.float32))
    assert body.history == history and len(body.model.graph.initializers) == 0


def test_outer_nodes_follow_their_readers_and_can_be_linked_from(doc: Document) -> None:
    body = doc.open_subgraph(op(doc, "Loop"), "body")
    events: list[list[Event]] = []
    body.subscribe(events.append)
    mask = next(n.id for n in body.nodes() if n.kind == "outer" and n.name == "mask")
    gather = op(body, "Gather", "/Gather_4")
    with pytest.raises(DocumentError, match="enclosing graph"):
        body.rename_node(mask, "m")
    body.disconnect(gather, 0)  # the outer node stays drawn (no reader now) so a link can come back
    assert mask in {n.id for n in body.nodes()} and "mask" not in body.outer_references()
    assert EdgesRemoved([f"{mask}:0->{gather}:0"]) in events[-1]
    body.connect(mask, 0, gather, 0)  # linking from an outer node: the body reads the value again
    assert EdgesAdded([f"{mask}:0->{gather}:0"]) in events[-1] and "mask" in body.outer_references()
    body.remove_nodes([mask])  # removing an outer node unlinks its readers; the enclosing value stays
    assert body.node(gather).inputs[0].state == "free" and mask in {n.id for n in body.nodes()}
    body.undo()
    assert body.node(gather).inputs[0].value_name == "mask"
    branch = body.open_subgraph(op(body, "If"), "then_branch")
    tanh = next(n for n in branch.nodes() if n.kind == "outer" and n.name == "/Tanh_output_0")
    mul = op(branch, "Mul", "/Mul_5")
    branch.disconnect(mul, 1)
    assert tanh.id in {n.id for n in branch.nodes()}  # a child's outer nodes stay as well
    seen: list[list[Event]] = []
    doc_events = doc.subscribe(seen.append)
    branch.close()
    body.close()
    doc_events()
    assert seen == []  # closing without confirming sends the parent nothing


def test_positions_of_a_body_travel_with_the_confirm(doc: Document) -> None:
    loop = op(doc, "Loop")
    body = doc.open_subgraph(loop, "body")
    body.arrange()
    where = {n.name: n.position for n in body.nodes() if n.kind == "op"}
    body.confirm()
    body.close()
    again = doc.open_subgraph(loop, "body")
    assert {n.name: n.position for n in again.nodes() if n.kind == "op"} == where


def test_create_and_remove_subgraphs(doc: Document, tmp_path: pathlib.Path) -> None:
    original = run(GRU)
    body = doc.open_subgraph(op(doc, "Loop"), "body")
    if_id = op(body, "If")
    slots = body.subgraph_slots(if_id)
    assert sorted((s.attribute, s.index) for s in slots) == [("else_branch", None), ("then_branch", None)]
    then_slot = next(i for i, s in enumerate(slots) if s.attribute == "then_branch")
    assert body.create_subgraph(if_id, "else_branch", duplicate_of=then_slot) is None  # else = copy of then
    names = {s.attribute: s.name for s in body.subgraph_slots(if_id)}
    assert names["else_branch"] == "/If_else_branch" and names["then_branch"] != names["else_branch"]
    with pytest.raises(DocumentError, match="already named"):
        body.create_subgraph(if_id, "else_branch", name=names["then_branch"])
    with pytest.raises(DocumentError, match="only entries of subgraph lists"):
        body.remove_subgraph(if_id, "then_branch", 0)
    with pytest.raises(DocumentError, match="no subgraph attribute 'body'"):
        body.create_subgraph(if_id, "body")
    body.confirm()
    body.close()
    unmasked = run(saved(doc, tmp_path, "no_mask"))  # every step now updates the state
    assert not np.allclose(unmasked, original, atol=1e-4)
    feed_all = dict(FEED, mask=np.ones(6, np.float32))
    session = ort.InferenceSession(str(GRU), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(unmasked, session.run(None, feed_all)[0], rtol=1e-5, atol=1e-6)


def test_graphs_lists_create_duplicate_remove_and_open(tmp_path: pathlib.Path) -> None:
    """A custom op with a GRAPHS attribute (no standard op has one): + appends, duplicate copies, − removes."""
    from onnx import TensorProto, helper

    branch = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "case0",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    node = helper.make_node("Switch", ["x"], ["out"], domain="com.example", cases=[branch])
    graph = helper.make_graph(
        [node],
        "main",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.example", 1)])
    onnx.save(model, str(tmp_path / "switch.onnx"))
    doc = Document.open(tmp_path / "switch.onnx")
    switch = op(doc, "Switch")
    assert doc.create_subgraph(switch, "cases") == 1
    assert doc.create_subgraph(switch, "cases", name="copy", duplicate_of=0) == 2
    slots = doc.subgraph_slots(switch)
    assert [(s.index, s.name, s.node_count) for s in slots] == [(0, "case0", 1), (1, "Switch_cases", 0), (2, "copy", 1)]
    copy = doc.open_subgraph(switch, "cases", 2)
    assert copy.outer_references() == ["x"] and copy.title.endswith("cases[2]")
    copy.rename_node(op(copy, "Relu"), "CopiedRelu")
    copy.confirm()
    copy.close()
    doc.remove_subgraph(switch, "cases", 1)
    assert [s.name for s in doc.subgraph_slots(switch)] == ["case0", "copy"]
    with pytest.raises(DocumentError, match="a list of 2 graphs"):
        doc.remove_subgraph(switch, "cases", 5)
    doc.save(tmp_path / "switch2.onnx")
    saved_node = onnx.load(str(tmp_path / "switch2.onnx")).graph.node[0]
    assert [g.name for g in saved_node.attribute[0].graphs] == ["case0", "copy"]
    assert saved_node.attribute[0].graphs[1].node[0].name == "CopiedRelu"
    doc.undo()
    doc.undo()
    doc.undo()
    assert [s.name for s in doc.subgraph_slots(switch)] == ["case0", "Switch_cases"]
