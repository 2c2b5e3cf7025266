"""Checks in a child process find what the in-process check finds, bound to the same node ids."""

from __future__ import annotations

import onnx
import onnx_ir as ir
from onnx import TensorProto, helper

from dld_jupyter.document import Document
from dld_jupyter.document.checks.check_process import CheckProcess
from dld_jupyter.document.checks.checks import check_model
from tests.models import transformer_like


def broken_model() -> onnx.ModelProto:
    """A Conv with its weight disconnected, a duplicate node name, an If whose branch has a bad node."""
    then = helper.make_graph([helper.make_node("Relu", [], ["t"], name="inner_relu")], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="inner_id")], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Conv", ["x", ""], ["c"], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="twice"),
        helper.make_node("Relu", ["r"], ["r2"], name="twice"),
        helper.make_node("Greater", ["r2", "zero"], ["cond"], name="gt"),
        helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then, else_branch=other),
    ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def key(result: object) -> list[tuple[str, str, str | None]]:
    return sorted((d.severity, d.message, d.node_id) for d in result.diagnostics)  # type: ignore[attr-defined]


def test_child_process_check_matches_in_process(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "broken.onnx"
    onnx.save(broken_model(), path)
    doc = Document.open(path)
    here = check_model(doc.model, doc.node_id)
    there = CheckProcess(doc.model, doc.node_id).result()
    assert key(there) == key(here)
    assert any("twice" in d.message for d in there.diagnostics)
    assert any("mandatory inputs" in d.message and d.node_id == doc.node_id(next(iter(doc.model.graph)))
               for d in there.diagnostics)
    assert dict(there.inferred).get("c") == dict(here.inferred).get("c")


def test_child_process_check_of_a_big_model_with_weights(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.onnx"
    onnx.save(transformer_like(layers=4), path)
    doc = Document.open(path)
    node = next(n for n in doc.model.graph if n.op_type == "MatMul")
    doc.disconnect(doc.node_id(node), 1)  # an edit the child must see: it gets the current model, not the file
    here = check_model(doc.model, doc.node_id)
    there = CheckProcess(doc.model, doc.node_id).result()
    assert key(there) == key(here) and not there.ok
    produced = [v.name for n in list(doc.model.graph)[:60] for v in n.outputs if v.name]
    assert [there.inferred.get(name) for name in produced] == [here.inferred.get(name) for name in produced]
    assert any(there.inferred.get(name) for name in produced)


def test_a_killed_check_is_a_failed_check_not_a_crash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = Document(ir.serde.deserialize_model(transformer_like(layers=2)))
    process = CheckProcess(doc.model, doc.node_id)
    process.kill()
    result = process.result()
    assert not result.ok and "check process failed" in result.diagnostics[0].message
