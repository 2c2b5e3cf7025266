"""Tensor edits in child documents during analysis (issue 37): in a subgraph tab, a tensor edit is an analysis override
of that tensor in the analysed model's subgraph, never the document or its file. On the scripted GRU export, the
Constant inside the If branch inside the Loop body (`1 - z`, nested two tabs deep) edited in the tensor editor gives
the outputs ORT gives the model edited the same way, is marked in the editor with its value, and reverted there
gives the original outputs exactly; an initializer of an If branch (a model built here: ONNX exporters fold body
weights into Constants) the same, the other branch's initializer of the same name untouched. The saved files stay
byte-identical and the documents clean. A tensor edit in a local function's body is refused saying why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.widgets.designer.designer import open_designer

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
GRU = REAL / "gru_scripted.onnx"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))


def ort_outputs(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options)
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))


def body_node(model: onnx.ModelProto, *path: str) -> onnx.NodeProto:
    """The node at `path` (node name, subgraph attribute, node name, …) of `model`."""
    node = next(n for n in model.graph.node if n.name == path[0])
    for step in range(1, len(path), 2):
        body = next(a.g for a in node.attribute if a.name == path[step])
        node = next(n for n in body.node if n.name == path[step + 1])
    return node


def test_a_constant_in_a_nested_branch_is_overridden_and_reverted() -> None:
    saved = GRU.read_bytes()
    d = open_designer(GRU)
    body = d.open_subgraph("/Loop", "body")
    branch = body.open_subgraph("/If", "then_branch")
    try:
        a = d.launch_analysis({"h0": "zeros"})
        assert a is not None
        feeds, before = dict(a.feeds), a.outputs()
        assert ort_outputs(onnx.load(str(GRU)), feeds).keys() == before.keys()
        editors = branch._editors
        constant = next(n.id for n in branch.document.nodes() if n.name == "/Constant_14")
        editors.open_tensor(node_id=constant, attribute="value")
        assert editors.tensor["text"] == "1.0"
        assert editors.handle({"kind": "tensor_set", "text": "0.25", "key": "tensor"}), editors.errors
        assert a.overrides == [{"node": "/Loop", "name": "value", "kind": "attribute",
                                "inside": ["body", "/If", "then_branch", "/Constant_14"]}]
        edited = onnx.load(str(GRU))
        body_node(edited, "/Loop", "body", "/If", "then_branch", "/Constant_14").attribute[0].t.CopyFrom(
            numpy_helper.from_array(np.array(0.25, dtype=np.float32)))
        expected, after = ort_outputs(edited, feeds), a.outputs()
        assert all(np.allclose(after[k], v, atol=1e-6) for k, v in expected.items())
        assert not all(np.allclose(after[k], v) for k, v in before.items())
        assert editors.tensor["override"] and editors.tensor["text"] == "0.25"
        assert branch.document.ir_node(constant).attributes["value"].as_tensor().numpy() == 1.0  # the document's

        assert editors.handle({"kind": "revert_override", "key": "tensor"}), editors.errors
        assert a.overrides == []
        assert all(np.array_equal(a.outputs()[k], v) for k, v in before.items())
        assert "override" not in editors.tensor and editors.tensor["text"] == "1.0"
        assert not d.document.dirty and not body.document.dirty and not branch.document.dirty
    finally:
        d.stop_analysis()
        branch.close()
        body.close()
        d.close()
    assert GRU.read_bytes() == saved


def if_with_branch_weights(path: Path) -> None:
    """y = If(flag, then: x * w, else: x + w), each branch holding its own initializer `w` (the same name, two
    scopes)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    then_out = helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [2, 3])
    else_out = helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [2, 3])
    then_branch = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["then_y"], name="then_mul")], "then", [], [then_out],
        [numpy_helper.from_array(np.array([1.5, -2.0, 0.5], dtype=np.float32), "w")])
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["else_y"], name="else_add")], "else", [], [else_out],
        [numpy_helper.from_array(np.array([0.1, 0.2, 0.3], dtype=np.float32), "w")])
    node = helper.make_node("If", ["flag"], ["y"], name="/If", then_branch=then_branch, else_branch=else_branch)
    graph = helper.make_graph([node], "if_weights",
                              [helper.make_tensor_value_info("flag", TensorProto.BOOL, []), x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10), str(path))


def test_an_initializer_of_an_if_branch_is_overridden_and_reverted(tmp_path: Path) -> None:
    path = tmp_path / "if_weights.onnx"
    if_with_branch_weights(path)
    saved = path.read_bytes()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    feeds = {"flag": np.array(True), "x": x}
    d = open_designer(path)
    branch = d.open_subgraph("/If", "then_branch")
    other = d.open_subgraph("/If", "else_branch")
    try:
        a = d.launch_analysis(feeds)
        assert a is not None
        before = a.outputs()
        assert np.array_equal(before["y"], ort_outputs(onnx.load(str(path)), feeds)["y"])
        editors = branch._editors
        weight = branch.document.model.graph.initializers["w"]
        editors.open_tensor(value_id=branch.document.value_id(weight))
        assert editors.handle({"kind": "tensor_set", "text": "[3.0, 0.0, -1.0]", "key": "tensor"}), editors.errors
        assert a.overrides == [{"node": "/If", "name": "w", "kind": "initializer",
                                "inside": ["then_branch", "then_mul"]}]
        edited = onnx.load(str(path))
        then_graph = next(g.g for g in edited.graph.node[0].attribute if g.name == "then_branch")
        then_graph.initializer[0].CopyFrom(numpy_helper.from_array(np.array([3.0, 0.0, -1.0], np.float32), "w"))
        assert np.array_equal(a.outputs()["y"], ort_outputs(edited, feeds)["y"])
        assert np.array_equal(a.outputs()["y"], x * np.array([3.0, 0.0, -1.0], np.float32))
        assert editors.tensor["override"] and editors.tensor["text"] == "[3.0, 0.0, -1.0]"
        other._editors.open_tensor(value_id=other.document.value_id(other.document.model.graph.initializers["w"]))
        assert "override" not in other._editors.tensor  # the else branch's own w is not the one overridden
        assert other._editors.tensor["text"] == "[0.1, 0.2, 0.3]"
        a.set_inputs({"flag": np.array(False)})
        assert np.array_equal(a.outputs()["y"], x + np.array([0.1, 0.2, 0.3], np.float32))
        a.set_inputs({"flag": np.array(True)})
        assert editors.handle({"kind": "revert_override", "key": "tensor"}), editors.errors
        assert a.overrides == [] and np.array_equal(a.outputs()["y"], before["y"])
        assert not d.document.dirty and not branch.document.dirty and not other.document.dirty
    finally:
        d.stop_analysis()
        other.close()
        branch.close()
        d.close()
    assert path.read_bytes() == saved


def test_a_tensor_edit_in_a_function_body_is_refused() -> None:
    d = open_designer(REAL / "shufflenet_functions_small.onnx")
    domain, name, *_ = next(iter(d.document.model.functions))
    child = d.open_function(name, domain)
    try:
        assert d.launch_analysis() is not None
        node = next(n for n in child.document.nodes() if child.document.ir_node(n.id) is not None)
        child._editors.open_tensor(node_id=node.id, attribute="value")
        assert not child._editors.handle({"kind": "tensor_set", "text": "1", "key": "tensor"})
        assert "shared by every call" in str(child._editors.errors)
        assert d.analysis is not None and d.analysis.overrides == []
    finally:
        d.stop_analysis()
        child.close()
        d.close()
