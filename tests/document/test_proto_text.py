"""The opening check of text fields (checks/proto_text.py) reads only the fields a message has set, and walks the
descriptor of messages with bytes fields so that a tensor's raw_data is never copied out (issue 42: the check was
0.77 s of a 50,000-node model's open)."""

from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from dld_jupyter.document.checks.proto_text import undecodable


def _with_bad(proto: onnx.ModelProto, marker: bytes) -> onnx.ModelProto:
    data = proto.SerializeToString()
    assert marker in data
    return onnx.ModelProto.FromString(data.replace(marker, b"\xff\xfe" + marker[2:]))


def _model(tensor_name: str = "w", raw: bytes = b"\x00\x01", attribute_graph_node: str = "inner") -> onnx.ModelProto:
    inner = helper.make_graph([helper.make_node("Identity", ["x"], ["y"], name=attribute_graph_node)], "body",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    weight = helper.make_tensor(tensor_name, TensorProto.UINT8, [len(raw)], raw, raw=True)
    nodes = [helper.make_node("Identity", ["a"], ["b"], name="outer"),
             helper.make_node("If", ["c"], ["d"], name="branch", then_branch=inner, else_branch=inner)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])], [weight])
    return helper.make_model(graph, producer_name="p")


def test_valid_text_and_arbitrary_tensor_bytes_pass() -> None:
    assert list(undecodable(_model(raw=b"\xff\xfe\x80\x00" * 64))) == []


def test_bad_text_is_found_in_a_tensor_name_and_in_a_nested_subgraph() -> None:
    found = list(undecodable(_with_bad(_model(tensor_name="QQtensor"), b"QQtensor")))
    assert [(where, raw) for where, raw in found] == [("field name of tensor in graph 'g'", b"\xff\xfetensor")]
    nested = list(undecodable(_with_bad(_model(attribute_graph_node="QQinner"), b"QQinner")))
    assert nested and all(raw == b"\xff\xfeinner" and "field name of node" in where for where, raw in nested)
    assert len(nested) == 2  # the body is both branches
