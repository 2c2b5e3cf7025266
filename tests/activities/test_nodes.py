from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.activities.runtimes.onnxruntime.nodes import map_nodes


def _original() -> object:
    w = numpy_helper.from_array(np.zeros((4, 3, 3, 3), np.float32), "w")
    return helper.make_graph(
        [
            helper.make_node(
                "Constant", [], ["c"], name="const", value=numpy_helper.from_array(np.ones(1, np.float32))
            ),
            helper.make_node("Conv", ["x", "w"], ["conv_out"], name="conv"),
            helper.make_node("BatchNormalization", ["conv_out", "s", "b", "m", "v"], ["bn_out"], name="bn"),
            helper.make_node("Relu", ["bn_out"], ["relu_out"], name="relu"),
            helper.make_node("Identity", ["relu_out"], ["id_out"], name="identity"),
            helper.make_node("Add", ["id_out", "c"], ["y"], name="add"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [w],
    )


def test_without_optimization_names_map_one_to_one_and_constants_are_removed() -> None:
    result = map_nodes(_original(), None, ["conv", "bn", "relu", "identity", "add"])  # type: ignore[arg-type]
    assert result.sources["bn"] == ["bn"]
    assert result.removed == ["const"]


def test_fused_conv_claims_bn_and_relu_and_the_eliminated_identity_is_removed() -> None:
    optimized = helper.make_graph(
        [
            helper.make_node(
                "FusedConv", ["x", "w_fused", "b_fused"], ["relu_out"], name="conv", domain="com.microsoft"
            ),
            helper.make_node("Add", ["relu_out", "c"], ["y"], name="add"),
        ],
        "g",
        [],
        [],
    )
    result = map_nodes(_original(), optimized, ["conv", "add"])  # type: ignore[arg-type]
    assert result.sources["conv"] == ["conv", "bn", "relu", "identity"] or result.sources["conv"] == [
        "conv",
        "bn",
        "relu",
    ]
    assert "const" in result.removed
    every = {n for names in result.sources.values() for n in names} | set(result.removed)
    assert every == {"const", "conv", "bn", "relu", "identity", "add"}


def test_nchwc_names_point_at_the_tensor_they_replace() -> None:
    optimized = helper.make_graph(
        [
            helper.make_node(
                "Conv", ["x", "reorder"], ["reorder_token_0"], name="relu_out_nchwc", domain="com.microsoft.nchwc"
            )
        ],
        "g",
        [],
        [],
    )
    result = map_nodes(_original(), optimized, ["relu_out_nchwc"])  # type: ignore[arg-type]
    assert result.sources["relu_out_nchwc"][:3] == ["conv", "bn", "relu"]


def _block_graph() -> object:
    """Two residual blocks as PyTorch exports them: conv -> relu -> conv -> add(skip) -> relu, weights through
    Identity aliases of one initializer."""
    w = numpy_helper.from_array(np.zeros((3, 3, 1, 1), np.float32), "w")
    nodes = [helper.make_node("Identity", ["w"], ["w_alias"], name="Identity_0")]
    skip = "x"
    for b in range(2):
        nodes += [
            helper.make_node("Conv", [skip, "w_alias"], [f"c{b}a"], name=f"/b{b}/conv1/Conv"),
            helper.make_node("Relu", [f"c{b}a"], [f"r{b}a"], name=f"/b{b}/relu/Relu"),
            helper.make_node("Conv", [f"r{b}a", "w"], [f"c{b}b"], name=f"/b{b}/conv2/Conv"),
            helper.make_node("Add", [f"c{b}b", skip], [f"s{b}"], name=f"/b{b}/Add"),
            helper.make_node("Relu", [f"s{b}"], [f"r{b}b"], name=f"/b{b}/relu_1/Relu"),
        ]
        skip = f"r{b}b"
    return helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info(skip, TensorProto.FLOAT, None)], [w],
    )


def test_nchwc_block_conv_owns_its_own_chain_and_the_residual_epilogue() -> None:
    """ORT names an NCHWc conv after the tensor it replaces (the Relu's output for conv+relu) and fuses the
    residual Add+Relu into the second conv: each block's first conv must not land in the layer before it."""
    nchwc = "com.microsoft.nchwc"
    optimized = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "wr"], ["t0"], name="r0a_nchwc", domain=nchwc),
            helper.make_node("Conv", ["t0", "wr", "", "x"], ["t1"], name="c0b_nchwc", domain=nchwc),
            helper.make_node("Conv", ["t1", "wr"], ["t2"], name="r1a_nchwc", domain=nchwc),
            helper.make_node("Conv", ["t2", "wr", "", "t1"], ["t3"], name="c1b_nchwc", domain=nchwc),
            helper.make_node("ReorderOutput", ["t3"], ["r1b"], name="ReorderOutput", domain=nchwc),
        ],
        "g", [], [],
    )
    executed = ["r0a_nchwc", "c0b_nchwc", "r1a_nchwc", "c1b_nchwc", "ReorderOutput"]
    result = map_nodes(_block_graph(), optimized, executed)  # type: ignore[arg-type]
    assert result.sources["r0a_nchwc"] == ["/b0/conv1/Conv", "/b0/relu/Relu"]
    assert result.sources["c0b_nchwc"] == ["/b0/conv2/Conv", "/b0/Add", "/b0/relu_1/Relu"]
    assert result.sources["r1a_nchwc"] == ["/b1/conv1/Conv", "/b1/relu/Relu"]
    assert result.sources["c1b_nchwc"] == ["/b1/conv2/Conv", "/b1/Add", "/b1/relu_1/Relu"]
    assert result.sources["ReorderOutput"] == []  # writes an original tensor but computes nothing of the model
    assert result.removed == ["Identity_0"]
    assert "constant" in result.reasons["Identity_0"]


def test_an_inlined_function_op_is_one_layer_named_after_its_node() -> None:
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["a"], name="relu"),
            helper.make_node("HardSwish", ["a"], ["y"], name="hswish"),
        ],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    )
    session = helper.make_graph(  # what ORT writes: the function body inlined, its nodes unnamed
        [
            helper.make_node("Relu", ["x"], ["a"], name="relu"),
            helper.make_node("HardSigmoid", ["a"], ["_inlfunc_HardSwish_HS_X"]),
            helper.make_node("Mul", ["a", "_inlfunc_HardSwish_HS_X"], ["y"]),
        ],
        "g", [], [],
    )
    result = map_nodes(graph, session, ["relu", "HardSigmoid_2", "Mul_3"])  # type: ignore[arg-type]
    assert result.merged == {"HardSigmoid_2": ("hswish", "HardSwish"), "Mul_3": ("hswish", "HardSwish")}
    assert result.sources == {"relu": ["relu"], "hswish": ["hswish"]}
    assert result.layer_of("Mul_3") == "hswish" and result.layer_of("relu") == "relu"
