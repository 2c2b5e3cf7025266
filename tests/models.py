"""Test models from real architectures, written with onnx.helper (shared fixtures: reuse them).

Every function returns a fresh, valid ``onnx.ModelProto`` (checker-clean, shape inference succeeds) with seeded
random weights, so tests are reproducible. Builds are cached as serialized bytes and parsed again on each call:
callers may mutate what they get, and a second call costs only a protobuf parse.

- ``resnet_like()``: a small ResNet (stem conv + batch norm + max pool, residual basic blocks with projection
  shortcuts, global average pooling, classifier), opset 17, ~60 nodes.
- ``transformer_like(layers=2)``: a BERT/Llama-like decoder stack (token embedding, pre-norm attention with
  per-head reshapes/transposes and a causal-free softmax, MLP with GELU written as Erf, residuals), opset 17,
  33 nodes per layer plus 3: ``layers=212`` gives 6,999 nodes.
- ``generated_graph(n_nodes)``: a synthetic graph of exactly ``n_nodes`` cheap element-wise nodes with skip
  connections and name scopes (``/block12/Relu_3``), weightless apart from one scalar, for scale tests.

Torchvision/transformers are not used: they are too heavy for CI; these are the same architectures.
"""

from __future__ import annotations

import functools

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


def _finish(graph: onnx.GraphProto, opset: int = OPSET) -> bytes:
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        ir_version=IR_VERSION,
        producer_name="dld_jupyter.tests",
    )
    return bytes(model.SerializeToString())


def _parse(data: bytes) -> onnx.ModelProto:
    model = onnx.ModelProto()
    model.ParseFromString(data)
    return model


class _Builder:
    """Collects nodes and initializers with unique names."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def weight(self, name: str, shape: tuple[int, ...], scale: float = 0.05) -> str:
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(data, name))
        return name

    def const(self, name: str, data: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(data, name))
        return name

    def op(self, op_type: str, inputs: list[str], scope: str, n_out: int = 1, **attrs: object) -> list[str]:
        name = f"{scope}/{op_type}_{self.count}"
        self.count += 1
        outs = [f"{name}_out{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs


@functools.lru_cache(maxsize=4)
def _resnet_bytes(blocks: int) -> bytes:
    b = _Builder(0)

    def conv_bn(x: str, cin: int, cout: int, k: int, stride: int, scope: str, relu: bool) -> str:
        w = b.weight(f"{scope}.conv.weight", (cout, cin, k, k))
        (y,) = b.op("Conv", [x, w], scope, kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4)
        bn = [b.weight(f"{scope}.bn.{p}", (cout,)) for p in ("scale", "bias", "mean")]
        var = b.const(f"{scope}.bn.var", np.abs(b.rng.standard_normal(cout)).astype(np.float32) + 1.0)
        (y,) = b.op("BatchNormalization", [y, *bn, var], scope, epsilon=1e-5)
        if relu:
            (y,) = b.op("Relu", [y], scope)
        return y

    x = conv_bn("input", 3, 16, 3, 1, "/stem", relu=True)
    (x,) = b.op("MaxPool", [x], "/stem", kernel_shape=[2, 2], strides=[2, 2])
    channels = 16
    for i in range(blocks):
        cout = channels * 2 if i % 2 == 1 else channels
        stride = 2 if i % 2 == 1 else 1
        scope = f"/layer{i}"
        y = conv_bn(x, channels, cout, 3, stride, f"{scope}/conv1", relu=True)
        y = conv_bn(y, cout, cout, 3, 1, f"{scope}/conv2", relu=False)
        short = conv_bn(x, channels, cout, 1, stride, f"{scope}/downsample", relu=False) if stride != 1 else x
        (y,) = b.op("Add", [y, short], scope)
        (x,) = b.op("Relu", [y], scope)
        channels = cout
    (x,) = b.op("GlobalAveragePool", [x], "/head")
    (x,) = b.op("Flatten", [x], "/head", axis=1)
    w = b.weight("fc.weight", (10, channels))
    bias = b.weight("fc.bias", (10,))
    b.op("Gemm", [x, w, bias], "/head", transB=1)
    b.nodes[-1].output[0] = "logits"
    graph = helper.make_graph(
        b.nodes,
        "resnet_like",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        b.inits,
    )
    return _finish(graph)


def resnet_like(blocks: int = 6) -> onnx.ModelProto:
    """A small ResNet on 32x32 RGB images, ``blocks`` residual basic blocks (default 6: ~60 nodes)."""
    return _parse(_resnet_bytes(blocks))


@functools.lru_cache(maxsize=4)
def _transformer_bytes(layers: int, hidden: int, heads: int, vocab: int) -> bytes:
    b = _Builder(1)
    head_dim = hidden // heads
    split_shape = b.const("shape.split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_shape = b.const("shape.merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = b.const("attn.scale", np.array(np.sqrt(head_dim), dtype=np.float32))
    sqrt2 = b.const("gelu.sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    one = b.const("gelu.one", np.array(1.0, dtype=np.float32))
    half = b.const("gelu.half", np.array(0.5, dtype=np.float32))
    emb = b.weight("embed.weight", (vocab, hidden))
    (x,) = b.op("Gather", [emb, "input_ids"], "/embed", axis=0)

    def norm(x: str, scope: str) -> str:
        g = b.const(f"{scope}.gamma", np.ones(hidden, dtype=np.float32))
        beta = b.const(f"{scope}.beta", np.zeros(hidden, dtype=np.float32))
        (y,) = b.op("LayerNormalization", [x, g, beta], scope, axis=-1, epsilon=1e-5)
        return y

    def linear(x: str, cin: int, cout: int, scope: str) -> str:
        (y,) = b.op("MatMul", [x, b.weight(f"{scope}.weight", (cin, cout))], scope)
        (y,) = b.op("Add", [y, b.weight(f"{scope}.bias", (cout,))], scope)
        return y

    def heads_of(x: str, scope: str, perm: list[int]) -> str:
        (y,) = b.op("Reshape", [x, split_shape], scope)
        (y,) = b.op("Transpose", [y], scope, perm=perm)
        return y

    for i in range(layers):
        s = f"/layers.{i}"
        h = norm(x, f"{s}/input_norm")
        q = heads_of(linear(h, hidden, hidden, f"{s}/attn/q_proj"), f"{s}/attn/q", [0, 2, 1, 3])
        k = heads_of(linear(h, hidden, hidden, f"{s}/attn/k_proj"), f"{s}/attn/k", [0, 2, 3, 1])
        v = heads_of(linear(h, hidden, hidden, f"{s}/attn/v_proj"), f"{s}/attn/v", [0, 2, 1, 3])
        (a,) = b.op("MatMul", [q, k], f"{s}/attn")
        (a,) = b.op("Div", [a, scale], f"{s}/attn")
        (a,) = b.op("Softmax", [a], f"{s}/attn", axis=-1)
        (a,) = b.op("MatMul", [a, v], f"{s}/attn")
        (a,) = b.op("Transpose", [a], f"{s}/attn", perm=[0, 2, 1, 3])
        (a,) = b.op("Reshape", [a, merge_shape], f"{s}/attn")
        a = linear(a, hidden, hidden, f"{s}/attn/o_proj")
        (x,) = b.op("Add", [x, a], s)
        h = norm(x, f"{s}/post_norm")
        h = linear(h, hidden, 4 * hidden, f"{s}/mlp/up")
        (e,) = b.op("Div", [h, sqrt2], f"{s}/mlp/gelu")
        (e,) = b.op("Erf", [e], f"{s}/mlp/gelu")
        (e,) = b.op("Add", [e, one], f"{s}/mlp/gelu")
        (e,) = b.op("Mul", [h, e], f"{s}/mlp/gelu")
        (e,) = b.op("Mul", [e, half], f"{s}/mlp/gelu")
        h = linear(e, 4 * hidden, hidden, f"{s}/mlp/down")
        (x,) = b.op("Add", [x, h], s)
    x = norm(x, "/final_norm")
    b.op("MatMul", [x, b.weight("lm_head.weight", (hidden, vocab))], "/lm_head")
    b.nodes[-1].output[0] = "logits"
    graph = helper.make_graph(
        b.nodes,
        "transformer_like",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", vocab])],
        b.inits,
    )
    return _finish(graph)


def transformer_like(layers: int = 2, hidden: int = 64, heads: int = 4, vocab: int = 128) -> onnx.ModelProto:
    """A decoder-only transformer of 33 * layers + 3 nodes; ``layers=212`` gives a ~7,000-node graph."""
    return _parse(_transformer_bytes(layers, hidden, heads, vocab))


@functools.lru_cache(maxsize=4)
def _generated_bytes(n_nodes: int) -> bytes:
    ops = ("Relu", "Sigmoid", "Add", "Mul", "Tanh", "Add")
    nodes: list[onnx.NodeProto] = []
    prev, skip = "x", "x"
    for i in range(n_nodes):
        op = ops[i % len(ops)]
        name = f"/block{i // 32}/{op}_{i}"
        out = f"t{i}"
        if op == "Add":
            inputs = [prev, skip]
        elif op == "Mul":
            inputs = [prev, "scale"]
        else:
            inputs = [prev]
        nodes.append(helper.make_node(op, inputs, [out], name=name))
        if i % 7 == 0:
            skip = prev
        prev = out
    graph = helper.make_graph(
        nodes,
        "generated",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16])],
        [numpy_helper.from_array(np.array(0.5, dtype=np.float32), "scale")],
    )
    return _finish(graph)


def generated_graph(n_nodes: int = 1000) -> onnx.ModelProto:
    """A weightless synthetic graph of exactly ``n_nodes`` nodes (fast: 50,000 nodes build in about a second)."""
    return _parse(_generated_bytes(n_nodes))
