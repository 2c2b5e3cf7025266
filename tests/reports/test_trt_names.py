"""TensorRT layer names -> ONNX source names, with and without a model."""

from __future__ import annotations

import pytest

from dld_jupyter.report_format.trt_names import OnnxIndex, metadata_sources, parse_layer_name, split_top_level


@pytest.mark.parametrize(
    ("name", "kind", "sources"),
    [
        ("Conv__435 + resnet50/conv1_relu/Relu", "compute", ["Conv__435", "resnet50/conv1_relu/Relu"]),
        ("resnet50/conv1_conv/Conv2D__6", "compute", ["resnet50/conv1_conv/Conv2D__6"]),
        ("PWN(A, B)", "compute", ["A", "B"]),
        ("PWN(PWN(/act/Sigmoid), /act/Mul)", "compute", ["/act/Sigmoid", "/act/Mul"]),
        ("/c/Conv + PWN(PWN(/a/Sig), /a/Mul + /a/Add)", "compute", ["/c/Conv", "/a/Sig", "/a/Mul", "/a/Add"]),
        ("A || B", "compute", ["A", "B"]),
        ("A + B || C + PWN(D)", "compute", ["A", "B", "C", "D"]),
        ("x:0 + y:1", "compute", ["x", "y"]),
        (
            "Reformatting CopyNode for Input Tensor 0 to Conv__435 + resnet50/conv1_relu/Relu",
            "reformat",
            ["Conv__435", "resnet50/conv1_relu/Relu"],
        ),
        ("Reformatting CopyNode for Output Tensor 0 to PWN(A, B)", "reformat", ["A", "B"]),
        ("Reformatted Input Tensor 1 to C", "reformat", ["C"]),
        ("conv1 input reformatter 0", "reformat", ["conv1"]),
        ("[ShapeHostToDeviceCopy 0]", "copy", []),
        ("[HostToDeviceCopy 3]", "copy", []),
        ("{ForeignNode[/m/Conv.../m/Add_3]}", "compute", ["/m/Conv", "/m/Add_3"]),
        ("(Unnamed Layer* 7) [Shuffle] + Relu_1", "compute", ["Relu_1"]),
        ("PWN(onnx::Mul_1 + (Unnamed Layer* 3) [Shuffle], Mul_2)", "compute", ["onnx::Mul_1", "Mul_2"]),
        ("__myl_MulAdd_myl0_3", "compute", []),
        ("A + A", "compute", ["A"]),
    ],
)
def test_parse(name: str, kind: str, sources: list[str]) -> None:
    parsed = parse_layer_name(name)
    assert parsed.kind == kind
    assert parsed.sources == sources
    assert parsed.overhead == (kind != "compute")


def test_reformat_keeps_its_target() -> None:
    parsed = parse_layer_name("Reformatting CopyNode for Input Tensor 0 to {ForeignNode[a...b]}")
    assert parsed.target == "{ForeignNode[a...b]}" and parsed.ranges == [("a", "b")]


def test_split_respects_brackets() -> None:
    assert split_top_level("PWN(a + b) + [x + y] + {c + d}", (" + ",)) == ["PWN(a + b)", "[x + y]", "{c + d}"]


def test_metadata_sources() -> None:
    assert metadata_sources("[ONNX Layer: /conv/Conv]\x1f[ONNX Layer: /relu/Relu]\x1f[ONNX Layer: /conv/Conv]") == [
        "/conv/Conv",
        "/relu/Relu",
    ]
    assert metadata_sources("") == []


def index() -> OnnxIndex:
    names = ["/m/Conv", "/m/Mul", "/m/Sig", "/m/Add_3", "tail", "Relu_1", "scope/Conv2D"]
    outputs = {"/m/Conv_output_0": "/m/Conv", "t:0": "tail", "scope/Conv2D:0": "scope/Conv2D"}
    return OnnxIndex(names, outputs)


def test_link_keeps_only_model_nodes_and_maps_tensors() -> None:
    idx = index()
    assert idx.link(parse_layer_name("Relu_1 + ghost + t:0")) == ["Relu_1", "tail"]
    assert idx.link(parse_layer_name("/m/Conv_output_0")) == ["/m/Conv"]
    assert idx.resolve("Relu_1_5") == "Relu_1"  # trailing _N added by TensorRT
    assert idx.resolve("scope/Conv2D__7") == "scope/Conv2D"
    assert idx.resolve("scope") is None


def test_foreign_node_range_expands_in_graph_order() -> None:
    idx = index()
    assert idx.link(parse_layer_name("{ForeignNode[/m/Conv.../m/Add_3]}")) == [
        "/m/Conv",
        "/m/Mul",
        "/m/Sig",
        "/m/Add_3",
    ]
    assert idx.link(parse_layer_name("{ForeignNode[/m/Add_3.../m/Mul]}")) == ["/m/Mul", "/m/Sig", "/m/Add_3"]
    assert idx.resolve_range("/m/Conv", "missing") == []


def test_from_model() -> None:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r"), helper.make_node("Neg", ["y"], ["z"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])],
    )  # fmt: skip
    idx = OnnxIndex.from_model(helper.make_model(graph))
    assert idx.order == ["r", "node"] and idx.resolve("y") == "r"  # the unnamed Neg: as opening names it
    assert idx.resolve("z") == "node" and idx.resolve("node_of_z") == "node"  # the TensorRT parser's name for it
    assert idx.link(parse_layer_name("r + node_of_z")) == ["r", "node"]
