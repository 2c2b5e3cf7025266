from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.activities.backends.ort_nodes import map_nodes


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
