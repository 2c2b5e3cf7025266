"""Structural diff against ground truths made here: renamed copies, one changed weight, sanitized copies, edits,
subgraphs, local functions and external data read from each model's own folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.cli.main import main
from dld_jupyter.model_compare import diff
from dld_jupyter.transforms.sanitize import sanitize
from tests import models

REAL = Path(__file__).parents[1] / "data" / "real"


def renamed(model: onnx.ModelProto) -> onnx.ModelProto:
    """Every node, value and initializer renamed (graph inputs and outputs keep theirs), order unchanged."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    keep = {v.name for v in graph.input} | {v.name for v in graph.output}
    names: dict[str, str] = {}
    for init in graph.initializer:
        names[init.name] = f"w{len(names)}"
        init.name = names[init.name]
    for k, node in enumerate(graph.node):
        node.name = f"node_{node.op_type}_{(k * 7919) % 100000}"
        for out in node.output:
            if out and out not in keep:
                names[out] = f"v{len(names)}"
    for node in graph.node:
        node.input[:] = [names.get(x, x) for x in node.input]
        node.output[:] = [names.get(x, x) for x in node.output]
    del graph.value_info[:]
    return copy


def with_weight(model: onnx.ModelProto, name: str, delta: float) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for init in copy.graph.initializer:
        if init.name == name:
            array = numpy_helper.to_array(init).copy()
            array.flat[0] += delta
            init.CopyFrom(numpy_helper.from_array(array, name))
    return copy


def test_every_node_renamed_is_no_structural_change() -> None:
    model = models.transformer_like(layers=3)
    result = diff(model, renamed(model))
    assert result.identical, result.headline()
    assert result.graph.renamed == len(model.graph.node) and len(result.graph.pairs) == len(model.graph.node)


@pytest.mark.parametrize("name", ["bert_tiny", "gpt2_tiny"])
def test_a_renamed_real_export_is_no_structural_change(name: str) -> None:
    model = onnx.load(str(REAL / f"{name}.onnx"))
    result = diff(model, renamed(model))
    assert result.identical, result.to_dict()


def test_one_changed_weight_is_exactly_its_node() -> None:
    model = models.transformer_like(layers=3)
    result = diff(model, with_weight(model, "/layers.1/mlp/up.weight", 1.0))
    assert not result.graph.added and not result.graph.removed
    [changed] = result.graph.changed
    assert changed.b.label == "/layers.1/mlp/up/MatMul_57" and [c.kind for c in changed.changes] == ["weight"]
    assert "content" in changed.changes[0].what and "/layers.1/mlp/up.weight" in changed.changes[0].what
    assert result.graph.by_scope()["layers.1/mlp"]["changed"] == 1 and result.graph.by_scope()[""]["changed"] == 1


@pytest.mark.parametrize("name", ["bert_tiny", "gpt2_tiny", "mobilenet_v3_small_w05"])
def test_a_sanitized_copy_lists_exactly_the_removed_and_folded_nodes(name: str, tmp_path: Path) -> None:
    source = REAL / f"{name}.onnx"
    result = sanitize(source, tmp_path / "s.onnx", compare=False)
    found = diff(source, tmp_path / "s.onnx")
    assert sorted(r.label for r in found.graph.removed) == sorted(result.folded + result.removed)
    assert not found.graph.added and not found.graph.io
    kinds = {c.kind for node in found.graph.changed for c in node.changes}
    assert kinds <= {"folded"}, [c.what for node in found.graph.changed for c in node.changes if c.kind != "folded"]


def _chain(*ops: tuple[str, dict[str, object]]) -> onnx.ModelProto:
    nodes, prev = [], "x"
    for k, (op, attrs) in enumerate(ops):
        nodes.append(helper.make_node(op, [prev], [f"t{k}"], name=f"/s/{op}_{k}", **attrs))
        prev = f"t{k}"
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_an_inserted_node_an_attribute_and_a_swapped_op() -> None:
    a = _chain(("Relu", {}), ("Softmax", {"axis": 1}), ("Neg", {}), ("Abs", {}))
    inserted = _chain(("Relu", {}), ("Sigmoid", {}), ("Softmax", {"axis": 1}), ("Neg", {}), ("Abs", {}))
    found = diff(a, inserted)
    assert [r.label for r in found.graph.added] == ["/s/Sigmoid_1"] and not found.graph.removed
    [softmax] = found.graph.changed
    assert softmax.a.op_type == "Softmax" and [c.kind for c in softmax.changes] == ["input"]
    attr = diff(a, _chain(("Relu", {}), ("Softmax", {"axis": 0}), ("Neg", {}), ("Abs", {})))
    [node] = attr.graph.changed
    assert [c.what for c in node.changes] == ["attribute axis: 1 → 0"]
    swapped = _chain(("Relu", {}), ("Softmax", {"axis": 1}), ("Neg", {}), ("Abs", {}))
    swapped.graph.node[2].op_type = "Sqrt"
    swapped.graph.node[2].name = "/s/Neg_2"  # same name, another op: paired by the name, reported as an op change
    [node] = diff(a, swapped).graph.changed
    assert node.a.label == "/s/Neg_2" and [c.what for c in node.changes] == ["op Neg → Sqrt"]


def _if_model(then_value: float) -> onnx.ModelProto:
    def branch(value: float, name: str) -> onnx.GraphProto:
        tensor = numpy_helper.from_array(np.array([value], np.float32))
        c = helper.make_node("Constant", [], [f"{name}_c"], value=tensor)
        add = helper.make_node("Add", ["x", f"{name}_c"], [f"{name}_y"], name=f"{name}_add")
        out = helper.make_tensor_value_info(f"{name}_y", TensorProto.FLOAT, [1])
        return helper.make_graph([c, add], name, [], [out])

    node = helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=branch(then_value, "then"),
                            else_branch=branch(0.0, "else"))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                                            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)  # runs on ORT


def test_a_constant_changed_inside_an_if_branch_is_nested_under_the_if() -> None:
    assert diff(_if_model(1.0), _if_model(1.0)).identical
    [node] = diff(_if_model(1.0), _if_model(2.0)).graph.changed
    [change] = node.changes
    assert node.a.label == "branch" and change.what.startswith("subgraph then_branch: 1 changed")
    [inner] = change.nested.changed
    assert inner.a.op_type == "Constant" and "content" in inner.changes[0].what


def _with_function(scale: str, parameters: tuple[str, ...] = ()) -> onnx.ModelProto:
    body = [helper.make_node("Mul", ["a", "a"], ["sq"]), helper.make_node(scale, ["sq"], ["out"])]
    function = helper.make_function("local", "Square", ["a"], ["out"], body, [helper.make_opsetid("", 17)],
                                    attributes=list(parameters))
    call = helper.make_node("Square", ["x"], ["y"], domain="local", name="call")
    graph = helper.make_graph([call], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    return helper.make_model(graph, functions=[function],
                             opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])


def test_a_local_function_body_is_diffed() -> None:
    assert diff(_with_function("Relu"), _with_function("Relu")).identical
    found = diff(_with_function("Relu"), _with_function("Abs"))
    assert found.graph.identical and list(found.functions) == ["local::Square"]
    body = found.functions["local::Square"]
    assert [r.op_type for r in body.removed] == ["Relu"] and [r.op_type for r in body.added] == ["Abs"]


def test_a_local_function_gaining_an_attribute_parameter_is_a_change() -> None:
    """Same body, one more attribute parameter: `dld diff` said "no structural change"."""
    found = diff(_with_function("Relu"), _with_function("Relu", ("alpha",)))
    assert not found.identical and found.functions["local::Square"].parameters == ["attribute parameter alpha added"]
    assert found.headline() == "function local::Square: attribute parameter alpha added"
    back = diff(_with_function("Relu", ("alpha",)), _with_function("Relu"))
    assert back.functions["local::Square"].to_dict()["parameters"] == ["attribute parameter alpha removed"]


def test_external_weights_are_read_from_each_models_own_folder(tmp_path: Path) -> None:
    """Both copies keep their weights in a file of the same name in their own folder; only B's differs."""
    model = models.transformer_like(layers=2)
    for folder, delta in (("a", 0.0), ("b", 0.5)):
        (tmp_path / folder).mkdir()
        onnx.save(with_weight(model, "/layers.0/attn/q_proj.weight", delta), str(tmp_path / folder / "m.onnx"),
                  save_as_external_data=True, location="weights.bin", size_threshold=0)
    same = diff(tmp_path / "a" / "m.onnx", tmp_path / "a" / "m.onnx")
    assert same.identical
    [changed] = diff(tmp_path / "a" / "m.onnx", tmp_path / "b" / "m.onnx").graph.changed
    assert changed.b.label.startswith("/layers.0/attn/q_proj/MatMul")
    shutil.copy(tmp_path / "a" / "weights.bin", tmp_path / "b" / "weights.bin")  # now B reads A's bytes
    assert diff(tmp_path / "a" / "m.onnx", tmp_path / "b" / "m.onnx").identical


def test_cli_diff_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = models.transformer_like(layers=2)
    onnx.save(model, str(tmp_path / "a.onnx"))
    onnx.save(renamed(with_weight(model, "/layers.1/mlp/up.weight", 2.0)), str(tmp_path / "b.onnx"))
    assert main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["identical"] is False and len(data["graph"]["changed"]) == 1
    assert data["graph"]["changed"][0]["changes"][0]["kind"] == "weight"
    assert main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "a.onnx")]) == 0
    assert capsys.readouterr().out.strip() == "no structural change"
    assert main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "missing.onnx")]) == 2
