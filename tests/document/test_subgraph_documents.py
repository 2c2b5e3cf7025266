"""Subgraph documents on a real export: the scripted GRU (tests/data/real/gru_scripted.onnx, TorchScript exporter)
is a Loop over time steps whose body holds an If (masked steps keep the state). Open the body and the nested
branch, edit, confirm, save, reload, run in onnxruntime; the lock, the contract, undo of a confirm."""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.document import (
    Document,
    DocumentError,
    EdgesAdded,
    EdgesRemoved,
    ReadOnlyChanged,
    SubgraphDocument,
    SubgraphSlot,
)
from dld_jupyter.document.model.events import Event

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
    assert doc.subgraphs.slots(loop) == [SubgraphSlot("body", None, "sub_graph", 60)]
    body = doc.subgraphs.open(loop, "body")
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
    body = doc.subgraphs.open(loop, "body")
    for edit in (lambda: doc.rename_node(gather, "g"), lambda: doc.remove_nodes([loop]), doc.arrange):
        with pytest.raises(DocumentError) as refused:
            edit()
        assert refused.value.why == LOCK
    with pytest.raises(DocumentError, match="open already"):
        doc.subgraphs.open(loop, "body")
    with pytest.raises(DocumentError, match="not saved on its own"):
        body.save()
    body.close()
    assert doc.read_only is None
    doc.rename_node(gather, "g")


def test_semantics_preserving_body_edit_confirm_save_reload(doc: Document, tmp_path: pathlib.Path) -> None:
    expected = run(GRU)
    loop = op(doc, "Loop")
    body = doc.subgraphs.open(loop, "body")
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
    body = doc.subgraphs.open(loop, "body")
    branch = body.subgraphs.open(op(body, "If"), "else_branch")  # nested: opened from the body's document
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
    reloaded = Document.open(tmp_path / "halved.onnx")  # the nested change is in the file
    loop_node = reloaded.ir_node(op(reloaded, "Loop"))
    assert loop_node is not None
    if_node = next(n for n in loop_node.attributes["body"].as_graph() if n.op_type == "If")
    constant = next(n for n in if_node.attributes["else_branch"].as_graph() if n.op_type == "Constant")
    assert constant.attributes["value"].as_tensor().numpy() == np.float32(0.5)
    assert doc.undo() == "Confirm Subgraph Edits"  # the old body is back
    assert body_names(doc, loop) == old_body
    np.testing.assert_allclose(run(saved(doc, tmp_path, "undone")), original, rtol=1e-6, atol=1e-6)
    assert doc.redo() == "Confirm Subgraph Edits"
    np.testing.assert_allclose(run(saved(doc, tmp_path, "redone")), changed, rtol=1e-6, atol=1e-6)


def test_the_loop_contract_is_checked_on_confirm_and_a_refusal_changes_nothing(doc: Document) -> None:
    loop = op(doc, "Loop")
    before = doc.ir_node(loop).attributes["body"].as_graph()  # type: ignore[union-attr]
    history = list(doc.history)
    body = doc.subgraphs.open(loop, "body")
    condition_out = next(n.id for n in body.nodes() if n.kind == "output")
    body.remove_nodes([condition_out])
    with pytest.raises(DocumentError, match=r"the body has 1 outputs; Loop '/Loop' .* needs 2"):
        body.confirm()
    body.undo()
    body.add_graph_input(body.add_node("Abs"), 0, "extra", "float", [1])
    with pytest.raises(DocumentError, match=r"has 4 inputs; Loop '/Loop' \(iteration_num, condition and 1"):
        body.confirm()
    assert doc.history == history and doc.ir_node(loop).attributes["body"].as_graph() is before  # type: ignore[union-attr]


def test_opset_imports_are_the_model_s_and_a_body_cannot_change_them(doc: Document) -> None:
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    body.set_model_info(opset_imports={"": 17, "com.microsoft": 1})
    with pytest.raises(DocumentError, match=r"imports opsets its model does not \(com.microsoft 1\)"):
        body.confirm()
    body.undo()
    body.confirm()
    assert doc.history[-1] == "Confirm Subgraph Edits"


def test_if_branch_contract_no_inputs_matching_outputs(doc: Document) -> None:
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    then = body.subgraphs.open(op(body, "If"), "then_branch")
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


def test_check_in_a_body_reports_on_the_body_s_node_ids(doc: Document) -> None:
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    gemm = op(body, "Gemm", "/h2h/Gemm")
    body.disconnect(gemm, 0)  # Gemm loses its A input (the state)
    found = body.check()
    assert any(d.severity == "error" and d.node_id == gemm for d in found)
    assert body.diagnostics == found
    body.close()
    with pytest.raises(DocumentError, match="closed"):
        body.subgraphs.open(op(body, "If"), "then_branch")


def test_scan_body_contract(tmp_path: pathlib.Path) -> None:
    """A running sum with Scan: one body input per state and scan input, one output per node output."""
    from onnx import TensorProto, helper

    def info(name: str, shape: list[int]) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "row"], ["sum_out"]), helper.make_node("Identity", ["sum_out"], ["scan"])],
        "running_sum",
        [info("sum_in", [2]), info("row", [2])],
        [info("sum_out", [2]), info("scan", [2])],
    )
    scan = helper.make_node("Scan", ["init", "rows"], ["total", "sums"], body=body, num_scan_inputs=1)
    graph = helper.make_graph(
        [scan], "main", [info("init", [2]), info("rows", [3, 2])], [info("total", [2]), info("sums", [3, 2])]
    )
    path = tmp_path / "scan.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), str(path))
    doc = Document.open(path)
    child = doc.subgraphs.open(op(doc, "Scan"), "body")
    assert child.outer_references() == [] and [n.kind for n in child.nodes()].count("input") == 2
    child.remove_nodes([next(n.id for n in child.nodes() if n.kind == "output" and n.name == "scan")])
    with pytest.raises(DocumentError, match=r"the body has 1 outputs; Scan 'node' \(one per node output\) needs 2"):
        child.confirm()
    child.undo()
    child.rename_node(op(child, "Add"), "Accumulate")
    child.confirm()
    child.close()
    doc.save(tmp_path / "scan2.onnx")
    feed = {"init": np.zeros(2, np.float32), "rows": np.arange(6, dtype=np.float32).reshape(3, 2)}
    total, sums = ort.InferenceSession(str(tmp_path / "scan2.onnx")).run(None, feed)
    np.testing.assert_allclose(sums, np.cumsum(feed["rows"], axis=0))
    np.testing.assert_allclose(total, feed["rows"].sum(axis=0))
    assert onnx.load(str(tmp_path / "scan2.onnx")).graph.node[0].attribute[0].g.node[0].name == "Accumulate"


def test_save_copy_of_a_body_is_a_standalone_model_for_profiling(
    doc: Document, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dld_jupyter.activities.model_ref import ModelRef

    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    branch = body.subgraphs.open(op(body, "If"), "then_branch")
    assert branch.name == "gru_scripted_Loop_body_If_then_branch"  # fit for a file name
    path = saved(branch, tmp_path, "then")  # checker (full) passes
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["/Sigmoid_1_output_0", "/Tanh_output_0", "h.31"]
    z, n, h = (RNG.random((2, 16), dtype=np.float32) for _ in range(3))
    (out,) = session.run(None, {"/Sigmoid_1_output_0": z, "/Tanh_output_0": n, "h.31": h})
    np.testing.assert_allclose(out, (1 - z) * n + z * h, rtol=1e-6, atol=1e-6)
    model = Document.open(shutil.copy(GRU, tmp_path / "gru.onnx"))
    branch = model.subgraphs.open(op(model, "Loop"), "body").subgraphs.open(op(body, "If"), "then_branch")
    branch.rename_node(op(branch, "Neg"), "Negate")  # unsaved edits: profiling writes a copy of them (kept: asked)
    monkeypatch.chdir(tmp_path / "..")
    ref = ModelRef.of(branch, keep=True)
    copy, home = ref.path, ref.copy_of
    # Beside the model's own file, not in the kernel's working folder (where it littered before).
    assert pathlib.Path(copy) == tmp_path / "gru_Loop_body_If_then_branch.profiled.onnx"
    assert home == str(tmp_path / "gru_Loop_body_If_then_branch.onnx")
    kept = onnx.load(copy)
    onnx.checker.check_model(kept, full_check=True)
    assert "Negate" in [n.name for n in kept.graph.node]
    assert not branch.closed and model.read_only == LOCK and branch.parent.dirty is False


def test_initializers_are_not_edited_in_a_subgraph_document(doc: Document) -> None:
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    history = list(body.history)
    with pytest.raises(DocumentError, match="initializers of a subgraph are not edited"):
        body.create_initializer("w", np.zeros(2, np.float32))
    assert body.history == history and len(body.model.graph.initializers) == 0


def test_outer_nodes_follow_their_readers_and_can_be_linked_from(doc: Document) -> None:
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
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
    branch = body.subgraphs.open(op(body, "If"), "then_branch")
    tanh = next(n for n in branch.nodes() if n.kind == "outer" and n.name == "/Tanh_output_0")
    mul = op(branch, "Mul", "/Mul_5")
    branch.disconnect(mul, 1)
    assert tanh.id in {n.id for n in branch.nodes()}  # a child's outer nodes stay as well
    seen: list[list[Event]] = []
    doc_events = doc.subscribe(seen.append)
    branch.close()
    body.close()
    doc_events()
    assert seen == [[ReadOnlyChanged(None)]]  # closing without confirming: the parent is only unlocked


def test_positions_of_a_body_travel_with_the_confirm(doc: Document) -> None:
    loop = op(doc, "Loop")
    body = doc.subgraphs.open(loop, "body")
    body.arrange()
    where = {n.name: n.position for n in body.nodes() if n.kind == "op"}
    body.confirm()
    body.close()
    again = doc.subgraphs.open(loop, "body")
    assert {n.name: n.position for n in again.nodes() if n.kind == "op"} == where


def test_create_and_remove_subgraphs(doc: Document, tmp_path: pathlib.Path) -> None:
    original = run(GRU)
    body = doc.subgraphs.open(op(doc, "Loop"), "body")
    if_id = op(body, "If")
    slots = body.subgraphs.slots(if_id)
    assert sorted((s.attribute, s.index) for s in slots) == [("else_branch", None), ("then_branch", None)]
    then_slot = next(i for i, s in enumerate(slots) if s.attribute == "then_branch")
    assert body.subgraphs.create(if_id, "else_branch", duplicate_of=then_slot) is None  # else = copy of then
    names = {s.attribute: s.name for s in body.subgraphs.slots(if_id)}
    assert names["else_branch"] == "/If_else_branch" and names["then_branch"] != names["else_branch"]
    with pytest.raises(DocumentError, match="already named"):
        body.subgraphs.create(if_id, "else_branch", name=names["then_branch"])
    with pytest.raises(DocumentError, match="only entries of subgraph lists"):
        body.subgraphs.remove(if_id, "then_branch", 0)
    with pytest.raises(DocumentError, match="no subgraph attribute 'body'"):
        body.subgraphs.create(if_id, "body")
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
    assert doc.subgraphs.create(switch, "cases") == 1
    assert doc.subgraphs.create(switch, "cases", name="copy", duplicate_of=0) == 2
    slots = doc.subgraphs.slots(switch)
    assert [(s.index, s.name, s.node_count) for s in slots] == [(0, "case0", 1), (1, "node_cases", 0), (2, "copy", 1)]
    copy = doc.subgraphs.open(switch, "cases", 2)
    assert copy.outer_references() == ["x"] and copy.title.endswith("cases[2]")
    copy.rename_node(op(copy, "Relu"), "CopiedRelu")
    copy.confirm()
    copy.close()
    doc.subgraphs.remove(switch, "cases", 1)
    assert [s.name for s in doc.subgraphs.slots(switch)] == ["case0", "copy"]
    with pytest.raises(DocumentError, match="a list of 2 graphs"):
        doc.subgraphs.remove(switch, "cases", 5)
    doc.save(tmp_path / "switch2.onnx")
    saved_node = onnx.load(str(tmp_path / "switch2.onnx")).graph.node[0]
    assert [g.name for g in saved_node.attribute[0].graphs] == ["case0", "copy"]
    assert saved_node.attribute[0].graphs[1].node[0].name == "CopiedRelu"
    doc.undo()
    doc.undo()
    doc.undo()
    assert [s.name for s in doc.subgraphs.slots(switch)] == ["case0", "node_cases"]  # the Switch was named on opening


def test_a_branch_reading_the_main_graph_through_the_loop_body(tmp_path: pathlib.Path) -> None:
    """An If inside a Loop body reads the main graph's input ``x`` (two scopes out): the branch document shows it as
    an outer reference, the confirms bind it back to the very value, and no swapped-out body keeps a use of it."""
    from onnx import TensorProto, helper

    def info(name: str, dtype: int = TensorProto.FLOAT, shape: list[int] | None = None) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, dtype, [2] if shape is None else shape)

    then = helper.make_graph([helper.make_node("Add", ["acc", "x"], ["t_out"])], "then", [], [info("t_out")])
    other = helper.make_graph([helper.make_node("Sub", ["acc", "x"], ["e_out"])], "else", [], [info("e_out")])
    body = helper.make_graph(
        [
            helper.make_node("Greater", ["acc", "zero"], ["gt"]),
            helper.make_node("Cast", ["gt"], ["gt_f"], to=TensorProto.FLOAT),
            helper.make_node("ReduceMax", ["gt_f"], ["any_f"], keepdims=0),
            helper.make_node("Cast", ["any_f"], ["c"], to=TensorProto.BOOL),
            helper.make_node("If", ["c"], ["next"], then_branch=then, else_branch=other),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [info("i", TensorProto.INT64, []), info("cond", TensorProto.BOOL, []), info("acc")],
        [info("cond_out", TensorProto.BOOL, []), info("next")],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "a0"], ["final"], body=body)],
        "main",
        [info("n", TensorProto.INT64, []), info("a0"), info("x")],
        [info("final")],
        initializer=[helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, str(tmp_path / "deep.onnx"))
    feed = {"n": np.array(3, np.int64), "a0": np.array([1.0, -5.0], np.float32), "x": np.array([2.0, 2.0], np.float32)}
    before = ort.InferenceSession(str(tmp_path / "deep.onnx")).run(None, feed)[0]
    doc = Document.open(tmp_path / "deep.onnx")
    loop = op(doc, "Loop")
    child = doc.subgraphs.open(loop, "body")
    assert child.outer_references() == ["zero", "x"]  # x is read only inside the If: drawn, no link
    then_doc = child.subgraphs.open(op(child, "If"), "then_branch")
    outer = {n.name: n.outputs[0] for n in then_doc.nodes() if n.kind == "outer"}
    assert set(outer) == {"acc", "x"} and (outer["x"].dtype, outer["x"].shape) == ("float", [2])
    then_doc.rename_node(op(then_doc, "Add"), "AddX")
    then_doc.confirm()
    then_doc.close()
    child.confirm()
    child.close()
    x = doc.model.graph.inputs[2]
    # unnamed nodes were named on opening (each branch is a graph of its own: `node` in both)
    assert sorted((use.node.name, use.node.graph.name) for use in x.uses()) == [("AddX", "then"), ("node", "else")]
    after = ort.InferenceSession(str(saved(doc, tmp_path, "deep2"))).run(None, feed)[0]
    np.testing.assert_allclose(after, before)
    doc.undo()
    assert sorted((use.node.name, use.node.graph.name) for use in x.uses()) == [("node", "else"), ("node", "then")]
