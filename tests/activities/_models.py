"""Tiny generated models for the activity tests (used until the shared tests/models.py lands).

Each builder returns an onnx.ModelProto with named nodes, opset 17 and IR version 8 (onnxruntime 1.31 loads at most 13).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
OPSET = 17


def _model(graph: onnx.GraphProto) -> onnx.ModelProto:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _init(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> onnx.TensorProto:
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)


def resnet_like(blocks: int = 2, channels: int = 16, size: int = 32, batch: str | int = "N") -> onnx.ModelProto:
    """Conv-BN-Relu stem, residual blocks (Conv-Relu-Conv-Add-Relu), global pool, flatten, Gemm."""
    rng = np.random.default_rng(0)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    c = channels
    inits += [_init("stem_w", (c, 3, 3, 3), rng)]
    nodes.append(helper.make_node("Conv", ["input", "stem_w"], ["stem_conv"], name="stem_conv", pads=[1, 1, 1, 1]))
    inits += [
        numpy_helper.from_array(np.ones(c, np.float32), "bn_scale"),
        numpy_helper.from_array(np.zeros(c, np.float32), "bn_bias"),
        numpy_helper.from_array(np.zeros(c, np.float32), "bn_mean"),
        numpy_helper.from_array(np.ones(c, np.float32), "bn_var"),
    ]
    nodes.append(
        helper.make_node(
            "BatchNormalization", ["stem_conv", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["stem_bn"], name="stem_bn"
        )
    )
    nodes.append(helper.make_node("Relu", ["stem_bn"], ["b0_out"], name="stem_relu"))
    x = "b0_out"
    for b in range(1, blocks + 1):
        p = f"block{b}"
        inits += [_init(f"{p}_w1", (c, c, 3, 3), rng), _init(f"{p}_w2", (c, c, 3, 3), rng)]
        nodes += [
            helper.make_node("Conv", [x, f"{p}_w1"], [f"{p}_c1"], name=f"{p}_conv1", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"{p}_c1"], [f"{p}_r1"], name=f"{p}_relu1"),
            helper.make_node("Conv", [f"{p}_r1", f"{p}_w2"], [f"{p}_c2"], name=f"{p}_conv2", pads=[1, 1, 1, 1]),
            helper.make_node("Add", [f"{p}_c2", x], [f"{p}_sum"], name=f"{p}_add"),
            helper.make_node("Relu", [f"{p}_sum"], [f"{p}_out"], name=f"{p}_relu2"),
        ]
        x = f"{p}_out"
    inits += [_init("fc_w", (c, 10), rng), _init("fc_b", (10,), rng)]
    nodes += [
        helper.make_node("GlobalAveragePool", [x], ["pool"], name="pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc"),
    ]
    graph = helper.make_graph(
        nodes,
        "resnet_like",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [batch, 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, 10])],
        inits,
    )
    return _model(graph)


def transformer_like(layers: int = 2, seq: int = 16, hidden: int = 32) -> onnx.ModelProto:
    """Token ids → Gather embedding → per layer: LayerNorm, Q/K/V MatMul, softmax attention, residual, MLP (Gelu)."""
    rng = np.random.default_rng(1)
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = [_init("embed", (64, hidden), rng)]
    inits.append(numpy_helper.from_array(np.array(1.0 / np.sqrt(hidden), np.float32), "scale"))
    inits.append(numpy_helper.from_array(np.array([0, 2, 1], np.int64), "perm_unused"))
    nodes.append(helper.make_node("Gather", ["embed", "tokens"], ["h0"], name="embed_gather"))
    # A Constant node: onnxruntime turns it into an initializer, so it never runs as a layer.
    nodes.append(
        helper.make_node(
            "Constant", [], ["one"], name="const_one", value=numpy_helper.from_array(np.array(1.0, np.float32))
        )
    )
    nodes.append(helper.make_node("Mul", ["h0", "one"], ["h0s"], name="embed_scale"))
    x = "h0s"
    for i in range(layers):
        p = f"l{i}"
        inits += [
            numpy_helper.from_array(np.ones(hidden, np.float32), f"{p}_ln_g"),
            numpy_helper.from_array(np.zeros(hidden, np.float32), f"{p}_ln_b"),
        ]
        inits += [_init(f"{p}_w{k}", (hidden, hidden), rng) for k in "qkvo"]
        inits += [_init(f"{p}_m1", (hidden, 4 * hidden), rng), _init(f"{p}_m2", (4 * hidden, hidden), rng)]
        inits += [_init(f"{p}_m1b", (4 * hidden,), rng)]
        nodes += [
            helper.make_node("LayerNormalization", [x, f"{p}_ln_g", f"{p}_ln_b"], [f"{p}_ln"], name=f"{p}_ln", axis=-1),
            helper.make_node("MatMul", [f"{p}_ln", f"{p}_wq"], [f"{p}_q"], name=f"{p}_q"),
            helper.make_node("MatMul", [f"{p}_ln", f"{p}_wk"], [f"{p}_k"], name=f"{p}_k"),
            helper.make_node("MatMul", [f"{p}_ln", f"{p}_wv"], [f"{p}_v"], name=f"{p}_v"),
            helper.make_node("Transpose", [f"{p}_k"], [f"{p}_kt"], name=f"{p}_kt", perm=[0, 2, 1]),
            helper.make_node("MatMul", [f"{p}_q", f"{p}_kt"], [f"{p}_s"], name=f"{p}_scores"),
            helper.make_node("Mul", [f"{p}_s", "scale"], [f"{p}_ss"], name=f"{p}_scale"),
            helper.make_node("Softmax", [f"{p}_ss"], [f"{p}_p"], name=f"{p}_softmax", axis=-1),
            helper.make_node("MatMul", [f"{p}_p", f"{p}_v"], [f"{p}_a"], name=f"{p}_attn"),
            helper.make_node("MatMul", [f"{p}_a", f"{p}_wo"], [f"{p}_o"], name=f"{p}_out_proj"),
            helper.make_node("Add", [x, f"{p}_o"], [f"{p}_r1"], name=f"{p}_res1"),
            helper.make_node("MatMul", [f"{p}_r1", f"{p}_m1"], [f"{p}_h"], name=f"{p}_mlp1"),
            helper.make_node("Add", [f"{p}_h", f"{p}_m1b"], [f"{p}_hb"], name=f"{p}_mlp1_bias"),
            helper.make_node("Gelu", [f"{p}_hb"], [f"{p}_g"], name=f"{p}_gelu", domain="com.microsoft"),
            helper.make_node("MatMul", [f"{p}_g", f"{p}_m2"], [f"{p}_h2"], name=f"{p}_mlp2"),
            helper.make_node("Add", [f"{p}_r1", f"{p}_h2"], [f"{p}_out"], name=f"{p}_res2"),
        ]
        x = f"{p}_out"
    graph = helper.make_graph(
        nodes,
        "transformer_like",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", seq, hidden])],
        inits,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    )
    model.ir_version = IR_VERSION
    return model
