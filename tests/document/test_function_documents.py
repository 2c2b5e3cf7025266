"""Local-function documents on the real ShuffleNetV2 export (InvertedResidual: 3 instances): open, edit (rename, add a
node, rewire), confirm as one undo step of the parent, save, reload; onnxruntime decides whether the semantics
changed. Every instance follows the definition."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.document import Document, DocumentError, FunctionDocument, NodesChanged
from dld_jupyter.document.checks.checks import check_model
from dld_jupyter.transforms.function_inline import inline_function
from tests.function_support import BLOCK, SHUFFLENET, run, run_file


def _open() -> tuple[Document, FunctionDocument]:
    doc = Document.open(SHUFFLENET)
    fdoc = doc.functions.open(*BLOCK)
    assert isinstance(fdoc, FunctionDocument)
    return doc, fdoc


def _op(fdoc: Document, name: str) -> str:
    return next(n.id for n in fdoc.nodes() if n.name == name)


def _body(path: Path) -> onnx.FunctionProto:
    return next(f for f in onnx.load(path).functions if (f.name, f.domain) == BLOCK)


def test_open_shows_the_body_as_a_graph_and_locks_the_parent() -> None:
    doc, fdoc = _open()
    function = doc.model.functions[(BLOCK[1], BLOCK[0], "")]
    assert (fdoc.kind, fdoc.title) == ("function", f"function {BLOCK[1]}::{BLOCK[0]}")
    assert [v.name for v in fdoc.model.graph.inputs] == [v.name for v in function.inputs]
    assert [v.name for v in fdoc.model.graph.outputs] == [v.name for v in function.outputs]
    inputs = [n for n in fdoc.nodes() if n.kind == "input"]
    assert len(inputs) == 11 and inputs[0].outputs[0].dtype is None  # untyped until checked
    assert len([n for n in fdoc.nodes() if n.kind == "op"]) == 14
    conv = fdoc.node(_op(fdoc, "Conv_77"))
    assert conv.attributes["group"] == "@inferred::Conv_group.1"
    assert doc.read_only and "InvertedResidual" in doc.read_only and doc.open_children == [fdoc]
    with pytest.raises(DocumentError, match="open for editing"):
        doc.add_node("Relu")
    with pytest.raises(DocumentError, match="open already"):
        doc.functions.open(*BLOCK)
    fdoc.close()
    assert doc.read_only is None and fdoc.closed


def test_check_binds_diagnostics_to_the_function_documents_nodes() -> None:
    _doc, fdoc = _open()
    assert fdoc.check() == []
    # types come from the parent's first instance: the first input is the 24-channel feature map
    first = fdoc.nodes()[0]
    assert fdoc.inferred[str(first.outputs[0].value_id)] == ("float", [1, 24, 16, 16])
    conv = _op(fdoc, "Conv_77")
    fdoc.disconnect(conv, 0)
    found = fdoc.check()
    assert found and all(d.node_id == conv for d in found if d.severity == "error")
    # the background checker's path (check_input) binds the standalone body's problems to the same ids
    background = check_model(*fdoc.check_input())
    assert any(d.node_id == conv and d.severity == "error" for d in background.diagnostics)
    with pytest.raises(DocumentError, match="not valid ONNX"):
        fdoc.confirm()
    assert _doc.history == []


def test_semantics_preserving_edit_confirm_save_reload_and_undo(tmp_path: Path) -> None:
    doc, fdoc = _open()
    reference = run(doc, tmp_path)[0]
    instances = next(f for f in doc.functions.list() if (f.name, f.domain) == BLOCK).instances
    old_definition = doc.model.functions[(BLOCK[1], BLOCK[0], "")]
    events: list[object] = []
    doc.subscribe(events.extend)
    fdoc.rename_node(_op(fdoc, "Conv_78"), "PointwiseConv")
    identity = fdoc.add_node("Identity", name="KeepBranch")
    fdoc.connect(_op(fdoc, "Concat_85"), 0, identity, 0)
    with fdoc.transaction("Rewire Reshape"):
        fdoc.disconnect(_op(fdoc, "Reshape_87"), 0)
        fdoc.connect(identity, 0, _op(fdoc, "Reshape_87"), 0)
    assert fdoc.dirty and len(fdoc.history) == 4
    fdoc.confirm()
    assert doc.history == ["Confirm Local Function Edits"] and not fdoc.dirty and not fdoc.closed
    changed = {n for e in events if isinstance(e, NodesChanged) for n in e.node_ids}
    assert set(instances) <= changed
    fdoc.close()
    doc.save(tmp_path / "edited.onnx")
    body = _body(tmp_path / "edited.onnx")
    names = [n.name for n in body.node]
    assert "PointwiseConv" in names and "Conv_78" not in names and "KeepBranch" in names
    reshape = next(n for n in body.node if n.name == "Reshape_87")
    keep = next(n for n in body.node if n.name == "KeepBranch")
    assert reshape.input[0] == keep.output[0]
    reloaded = Document.open(tmp_path / "edited.onnx")
    assert next(f for f in reloaded.functions.list() if (f.name, f.domain) == BLOCK).instances == instances
    assert np.array_equal(run_file(tmp_path / "edited.onnx")[0], reference)
    doc.undo()
    assert doc.model.functions[(BLOCK[1], BLOCK[0], "")] is old_definition
    doc.save(tmp_path / "undone.onnx")
    assert "KeepBranch" not in [n.name for n in _body(tmp_path / "undone.onnx").node]


def test_semantics_changing_edit_changes_every_instance_and_undo_restores(tmp_path: Path) -> None:
    doc, fdoc = _open()
    reference = run(doc, tmp_path)[0]
    neg = fdoc.add_node("Neg")
    fdoc.connect(_op(fdoc, "Relu_84"), 0, neg, 0)
    fdoc.disconnect(_op(fdoc, "Concat_85"), 1)
    fdoc.connect(neg, 0, _op(fdoc, "Concat_85"), 1)
    fdoc.confirm()
    fdoc.close()
    doc.save(tmp_path / "negated.onnx")
    assert "Neg" in [n.op_type for n in _body(tmp_path / "negated.onnx").node]
    changed = run_file(tmp_path / "negated.onnx")[0]
    assert not np.allclose(changed, reference)
    # every instance calls the new definition: inlined, each of the three brings its own Neg
    reloaded = Document.open(tmp_path / "negated.onnx")
    for instance in next(f for f in reloaded.functions.list() if (f.name, f.domain) == BLOCK).instances:
        inline_function(reloaded, instance)
    assert sum(n.op_type == "Neg" for n in reloaded.nodes()) == 3
    assert np.array_equal(run(reloaded, tmp_path)[0], changed)
    doc.undo()
    assert np.array_equal(run(doc, tmp_path)[0], reference)
    doc.redo()
    assert np.array_equal(run(doc, tmp_path)[0], changed)


def test_parameters_and_references_round_trip_through_save_reload_and_onnxruntime(tmp_path: Path) -> None:
    doc, fdoc = _open()
    reference = run(doc, tmp_path)[0]
    transpose = _op(fdoc, "Transpose_88")
    assert "perm" in fdoc.referable_attributes(transpose)
    fdoc.add_parameter("shuffle_perm", "ints", [0, 2, 1, 3, 4])
    fdoc.add_parameter("width", "int", 1)
    fdoc.add_parameter("anything", "undefined")
    choices = {c.parameter: c.compatible for c in fdoc.reference_choices(transpose, "perm")}
    assert choices["shuffle_perm"] and choices["anything"] and not choices["width"]
    with pytest.raises(DocumentError, match=r"'width' is INT, Transpose\.perm is INTS"):
        fdoc.set_reference_attribute(transpose, "perm", "width")
    with pytest.raises(DocumentError, match="needs a default"):
        fdoc.add_parameter("nodefault", "float")
    fdoc.set_reference_attribute(transpose, "perm", "shuffle_perm")
    assert fdoc.node(transpose).attributes["perm"] == "@shuffle_perm"
    assert "perm" not in fdoc.referable_attributes(transpose)
    with pytest.raises(DocumentError, match=r"referenced by Transpose_88\.perm"):
        fdoc.remove_parameter("shuffle_perm")
    fdoc.remove_parameter("width")
    fdoc.undo()
    assert [p.name for p in fdoc.parameters()][-3:] == ["shuffle_perm", "width", "anything"]
    fdoc.confirm()
    fdoc.close()
    doc.save(tmp_path / "params.onnx")
    body = _body(tmp_path / "params.onnx")
    assert {a.name: list(a.ints) for a in body.attribute_proto if a.name == "shuffle_perm"} == {
        "shuffle_perm": [0, 2, 1, 3, 4]
    }
    assert "anything" in body.attribute  # an undefined parameter: a name without default
    perm = next(a for n in body.node if n.op_type == "Transpose" for a in n.attribute if a.name == "perm")
    assert perm.ref_attr_name == "shuffle_perm"
    # the default keeps the channel shuffle: same outputs
    assert np.array_equal(run_file(tmp_path / "params.onnx")[0], reference)
    reloaded = Document.open(tmp_path / "params.onnx")
    info = next(f for f in reloaded.functions.list() if (f.name, f.domain) == BLOCK)
    assert ("shuffle_perm", "INTS", [0, 2, 1, 3, 4]) in [(p.name, p.type, p.default) for p in info.parameters]
    # an instance passes its own value: no shuffle in that block, other outputs
    reloaded.set_attribute(info.instances[0], "shuffle_perm", [0, 1, 2, 3, 4])
    assert not np.array_equal(run(reloaded, tmp_path)[0], reference)
    reloaded.reset_attribute(info.instances[0], "shuffle_perm")
    assert np.array_equal(run(reloaded, tmp_path)[0], reference)
    # the reloaded function document shows the reference and lets it go
    fdoc2 = reloaded.functions.open(*BLOCK)
    transpose2 = _op(fdoc2, "Transpose_88")
    assert fdoc2.node(transpose2).attributes["perm"] == "@shuffle_perm"
    fdoc2.clear_reference_attribute(transpose2, "perm")
    assert "perm" not in fdoc2.node(transpose2).attributes
    fdoc2.remove_parameter("shuffle_perm")


def test_instances_pass_values_for_undefined_parameters(tmp_path: Path) -> None:
    doc = Document.open(SHUFFLENET)
    reference = run(doc, tmp_path)[0]
    instance = next(f for f in doc.functions.list() if (f.name, f.domain) == BLOCK).instances[0]
    assert doc.node(instance).attributes["inferred::Conv_group"] == 24
    doc.set_attribute(instance, "inferred::Conv_group", 24)
    assert np.array_equal(run(doc, tmp_path)[0], reference)
    with pytest.raises(DocumentError, match="no parameter 'not_a_parameter'"):
        doc.set_attribute(instance, "not_a_parameter", 1)


def test_function_documents_hold_no_initializers_and_close_drops_edits() -> None:
    doc, fdoc = _open()
    with pytest.raises(DocumentError, match="holds no initializers"):
        fdoc.create_initializer("w", np.zeros(3, np.float32))
    assert fdoc.history == [] and not fdoc.model.graph.initializers
    fdoc.add_node("Relu")
    fdoc.close()
    assert doc.history == [] and doc.read_only is None
    with pytest.raises(DocumentError, match="is closed"):
        fdoc.confirm()
    with pytest.raises(DocumentError, match="not saved on its own"):
        doc.functions.open(*BLOCK).save()


def test_a_created_function_is_edited_and_called(tmp_path: Path) -> None:
    doc = Document.new(opset=17)
    doc.functions.create("Double", "my.ops")
    fdoc = doc.functions.open("Double", "my.ops")
    add = fdoc.add_node("Add")
    x = next(n.id for n in fdoc.nodes() if n.kind == "input")
    fdoc.connect(x, 0, add, 0)
    fdoc.connect(x, 0, add, 1)
    fdoc.remove_nodes([next(n.id for n in fdoc.nodes() if n.op_type == "Identity")])  # its output y goes too
    fdoc.add_graph_output(add, 0, "y")
    fdoc.confirm()
    fdoc.close()
    call = doc.add_node("Double", "my.ops")
    doc.add_graph_input(call, 0, "a", "float", [3])
    doc.add_graph_output(call, 0, "b")
    doc.save(tmp_path / "double.onnx")
    a = np.array([1.0, 2.0, 3.5], np.float32)
    assert np.array_equal(run_file(tmp_path / "double.onnx", {"a": a})[0], 2 * a)


def test_function_definitions_are_edited_from_the_main_model_only() -> None:
    from dld_jupyter.transforms.function_create import create_function_from_selection

    doc = Document.open(SHUFFLENET)
    fdoc = doc.functions.open("InvertedResidual.1", BLOCK[1])
    relu = next(n.id for n in fdoc.nodes() if n.op_type == "Relu")
    for attempt in (
        lambda: fdoc.functions.create("Inner", "my.ops"),
        lambda: fdoc.functions.delete(*BLOCK),
        lambda: fdoc.functions.open(*BLOCK),
        lambda: create_function_from_selection(fdoc, [relu], "Inner", "my.ops"),
    ):
        with pytest.raises(DocumentError, match="main model's document"):
            attempt()
    assert fdoc.history == []
    # a body may call another function: it shows as an instance there and inlines in place
    call = fdoc.add_node(BLOCK[0], BLOCK[1])
    assert fdoc.node(call).function == f"{BLOCK[1]}::{BLOCK[0]}"
    assert len(inline_function(fdoc, call)) == 14


def test_save_copy_of_a_function_document_is_the_body_as_a_runnable_model(tmp_path: Path) -> None:
    doc, fdoc = _open()
    fdoc.save_copy(tmp_path / "body.onnx")
    onnx.checker.check_model(onnx.load(tmp_path / "body.onnx"), full_check=True)
    feeds = {}
    proto = onnx.load(tmp_path / "body.onnx")
    for info in proto.graph.input:
        dims = [d.dim_value for d in info.type.tensor_type.shape.dim]
        feeds[info.name] = np.ones(dims, np.float32)
    assert run_file(tmp_path / "body.onnx", feeds)[0].shape == (1, 48, 8, 8)
    assert not doc.dirty and fdoc.path is None
    lonely = Document.new(opset=17)
    lonely.functions.create("Alone", "my.ops")
    with pytest.raises(DocumentError, match="type of input 'x' is not known"):
        lonely.functions.open("Alone", "my.ops").save_copy(tmp_path / "alone.onnx")


def test_the_bodys_layout_is_kept_in_the_definition(tmp_path: Path) -> None:
    doc, fdoc = _open()
    spots = {n.id: (100.0 * i, 40.0 * i) for i, n in enumerate(fdoc.nodes())}
    fdoc.move_nodes(spots)
    fdoc.confirm()
    fdoc.close()
    doc.save(tmp_path / "placed.onnx")
    assert "dld.positions" in {p.key for p in _body(tmp_path / "placed.onnx").metadata_props}
    again = Document.open(tmp_path / "placed.onnx").functions.open(*BLOCK)
    assert {n.name: n.position for n in again.nodes()} == {n.name: spots[n.id] for n in fdoc.nodes()}


def test_bad_parameter_and_reference_edits_say_why_and_change_nothing() -> None:
    _doc, fdoc = _open()
    conv = _op(fdoc, "Conv_78")
    io = next(n.id for n in fdoc.nodes() if n.kind == "input")
    fdoc.add_parameter("k", "ints", [1, 1])
    history, parameters = list(fdoc.history), fdoc.parameters()
    cases = [
        (lambda: fdoc.add_parameter("", "int", 1), "not a usable parameter name"),
        (lambda: fdoc.add_parameter("k", "int", 1), "already has a parameter 'k'"),
        (lambda: fdoc.add_parameter("g", "graph", None), "not a parameter type"),
        (lambda: fdoc.add_parameter("g", "int", "three"), "an integer is expected"),
        (lambda: fdoc.add_parameter("u", "undefined", 3), "an undefined parameter has no default"),
        (lambda: fdoc.remove_parameter("nope"), "no such parameter"),
        (lambda: fdoc.set_reference_attribute(conv, "kernel_shape", "nope"), "no parameter 'nope'"),
        (lambda: fdoc.set_reference_attribute(conv, "no_such", "k"), "Conv has no attribute 'no_such'"),
        (lambda: fdoc.set_reference_attribute(io, "kernel_shape", "k"), "not an operator"),
        (lambda: fdoc.clear_reference_attribute(conv, "kernel_shape"), "is not a reference"),
        (lambda: fdoc.reference_choices(conv, "no_such"), "Conv has no attribute"),
    ]
    for attempt, why in cases:
        with pytest.raises(DocumentError, match=why):
            attempt()
    assert fdoc.history == history and fdoc.parameters() == parameters


def test_confirm_imports_a_domain_only_the_body_uses_and_refuses_a_second_version() -> None:
    doc = Document.new(opset=17)
    doc.functions.create("Smooth", "my.ops")
    fdoc = doc.functions.open("Smooth", "my.ops")
    fdoc.set_model_info(opset_imports={"": 17, "com.microsoft": 1})
    fdoc.add_node("Gelu", "com.microsoft")
    fdoc.confirm()
    assert doc.model.opset_imports["com.microsoft"] == 1
    assert doc.model.functions[("my.ops", "Smooth", "")].opset_imports["com.microsoft"] == 1
    fdoc.set_model_info(opset_imports={"": 16, "com.microsoft": 1})
    with pytest.raises(DocumentError, match=r"imports ai\.onnx 16, the model 17"):
        fdoc.confirm()
    fdoc.close()
    doc.undo()
    assert "com.microsoft" not in doc.model.opset_imports
