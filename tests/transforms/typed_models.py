"""Tiny models that model-wide transforms used to turn into models onnxruntime refuses (issue 31, finding 5), each
named for what it exercises, and a helper that loads a result in a real onnxruntime session."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

IR = 8  # what onnxruntime 1.31 loads (onnx 1.23's helper would write 12 or more)


def _model(graph: onnx.GraphProto, opset: int = 17, functions: list[onnx.FunctionProto] | None = None) -> bytes:
    imports = [h.make_opsetid("", opset)] + ([h.make_opsetid("local", 1)] if functions else [])
    model = h.make_model(graph, opset_imports=imports, functions=functions or [], ir_version=IR)
    return model.SerializeToString()


def _scale_function(constant: onnx.NodeProto) -> onnx.FunctionProto:
    """local.Scale(x) = x * c, c a float Constant of the body."""
    mul = h.make_node("Mul", ["x", "c"], ["y"], name="mul")
    return h.make_function("local", "Scale", ["x"], ["y"], [constant, mul], [h.make_opsetid("", 17)])


def function_constant(form: str = "value") -> bytes:
    """Add a weight, then a local function whose float Constant (`form`: value / value_float) multiplies by 2."""
    if form == "value":
        constant = h.make_node("Constant", [], ["c"], name="two", value=nh.from_array(np.array([2.0], np.float32)))
    else:
        constant = h.make_node("Constant", [], ["c"], name="two", value_float=2.0)
    w = nh.from_array(np.linspace(0.5, 1.5, 6, dtype=np.float32).reshape(2, 3), "w")
    nodes = [
        h.make_node("Add", ["X", "w"], ["a"], name="add"),
        h.make_node("Scale", ["a"], ["Y"], "scale", domain="local"),
    ]
    x, y = h.make_tensor_value_info("X", T.FLOAT, [2, 3]), h.make_tensor_value_info("Y", T.FLOAT, [2, 3])
    graph = h.make_graph(nodes, "g", [x], [y], [w])
    return _model(graph, functions=[_scale_function(constant)])


def function_reads_weight() -> bytes:
    """A local function (float Constant inside) reading an initializer directly: no schema says what it takes."""
    constant = h.make_node("Constant", [], ["c"], name="two", value=nh.from_array(np.array([2.0], np.float32)))
    w = nh.from_array(np.ones((3,), np.float32), "w")
    nodes = [h.make_node("Scale", ["w"], ["s"], "scale", domain="local"), h.make_node("Add", ["X", "s"], ["Y"], "add")]
    graph = h.make_graph(
        nodes, "g", [h.make_tensor_value_info("X", T.FLOAT, [3])], [h.make_tensor_value_info("Y", T.FLOAT, [3])], [w]
    )
    return _model(graph, functions=[_scale_function(constant)])


def quantized(opset: int = 17) -> bytes:
    """QuantizeLinear then DequantizeLinear of the input, plus a dequantized int8 weight: scales 0.0123 (float32)."""
    inits = [
        nh.from_array(np.array([12, -7, 100], np.int8), "q_w"),
        nh.from_array(np.array(0.0123, np.float32), "scale"),
        nh.from_array(np.array(0, np.int8), "zero"),
    ]
    nodes = [
        h.make_node("QuantizeLinear", ["X", "scale", "zero"], ["xq"], name="quantize"),
        h.make_node("DequantizeLinear", ["xq", "scale", "zero"], ["xd"], name="dequantize_x"),
        h.make_node("DequantizeLinear", ["q_w", "scale", "zero"], ["wd"], name="dequantize_w"),
        h.make_node("Add", ["xd", "wd"], ["Y"], name="add"),
    ]
    graph = h.make_graph(
        nodes, "g", [h.make_tensor_value_info("X", T.FLOAT, [3])], [h.make_tensor_value_info("Y", T.FLOAT, [3])], inits
    )
    return _model(graph, opset)


def float64_only() -> bytes:
    """Everything in float64: input, weight, output."""
    w = nh.from_array(np.ones((3,), np.float64), "w")
    graph = h.make_graph(
        [h.make_node("Add", ["X", "w"], ["Y"], name="add")],
        "g",
        [h.make_tensor_value_info("X", T.DOUBLE, [3])],
        [h.make_tensor_value_info("Y", T.DOUBLE, [3])],
        [w],
    )
    return _model(graph)


def float64_section() -> bytes:
    """float32 in and out, a float64 section in the middle (Cast to double, Add, Cast back), then a float32 weight."""
    inits = [nh.from_array(np.ones((3,), np.float64), "w64"), nh.from_array(np.full((3,), 2.0, np.float32), "w32")]
    nodes = [
        h.make_node("Cast", ["X"], ["xd"], name="to_double", to=T.DOUBLE),
        h.make_node("Add", ["xd", "w64"], ["s"], name="add_double"),
        h.make_node("Cast", ["s"], ["sf"], name="to_float", to=T.FLOAT),
        h.make_node("Mul", ["sf", "w32"], ["Y"], name="mul"),
    ]
    graph = h.make_graph(
        nodes, "g", [h.make_tensor_value_info("X", T.FLOAT, [3])], [h.make_tensor_value_info("Y", T.FLOAT, [3])], inits
    )
    return _model(graph)


def function_in_if_in_loop() -> bytes:
    """A Loop (trip count an input) whose body holds an If whose then-branch calls a local function."""
    constant = h.make_node("Constant", [], ["c"], name="two", value_float=2.0)
    then_branch = h.make_graph(
        [h.make_node("Scale", ["v"], ["t"], domain="local")], "then", [], [h.make_tensor_value_info("t", T.FLOAT, [3])]
    )
    else_branch = h.make_graph(
        [h.make_node("Identity", ["v"], ["e"])], "else", [], [h.make_tensor_value_info("e", T.FLOAT, [3])]
    )
    body = h.make_graph(
        [
            h.make_node("If", ["cond_in"], ["v_next"], then_branch=then_branch, else_branch=else_branch),
            h.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "body",
        [
            h.make_tensor_value_info("i", T.INT64, []),
            h.make_tensor_value_info("cond_in", T.BOOL, []),
            h.make_tensor_value_info("v", T.FLOAT, [3]),
        ],
        [h.make_tensor_value_info("cond_out", T.BOOL, []), h.make_tensor_value_info("v_next", T.FLOAT, [3])],
    )
    cond = nh.from_array(np.array(True), "cond")
    graph = h.make_graph(
        [h.make_node("Loop", ["N", "cond", "X"], ["Y"], name="loop", body=body)],
        "g",
        [h.make_tensor_value_info("N", T.INT64, []), h.make_tensor_value_info("X", T.FLOAT, [3])],
        [h.make_tensor_value_info("Y", T.FLOAT, [3])],
        [cond],
    )
    return _model(graph, functions=[_scale_function(constant)])


def resize_by_constant() -> bytes:
    """Resize whose scales come from a Constant: the converter makes them float16, which Resize never takes."""
    scales = nh.from_array(np.array([1, 1, 2, 2], np.float32), "scales_value")
    nodes = [
        h.make_node("Constant", [], ["scales"], name="scales", value=scales),
        h.make_node("Resize", ["X", "", "scales"], ["Y"], name="resize", mode="nearest"),
    ]
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("X", T.FLOAT, [1, 1, 2, 2])],
        [h.make_tensor_value_info("Y", T.FLOAT, [1, 1, 4, 4])],
    )
    return _model(graph)


def vendor_plugin() -> bytes:
    """A weighted Add, then a TensorRT-style plugin op onnxruntime has no kernel for: invalid there before any edit."""
    w = nh.from_array(np.ones((3,), np.float32), "w")
    nodes = [
        h.make_node("Add", ["X", "w"], ["a"], name="add"),
        h.make_node("Foo", ["a"], ["Y"], "plugin", domain="vendor"),
    ]
    x, y = h.make_tensor_value_info("X", T.FLOAT, [3]), h.make_tensor_value_info("Y", T.FLOAT, [3])
    graph = h.make_graph(nodes, "g", [x], [y], [w])
    imports = [h.make_opsetid("", 17), h.make_opsetid("vendor", 1)]
    return h.make_model(graph, opset_imports=imports, ir_version=IR).SerializeToString()


def save(data: bytes, path: Path) -> Path:
    path.write_bytes(data)
    return path


def loads(path: Path) -> ort.InferenceSession:
    """A real onnxruntime CPU session on the file (raises what onnxruntime says when it refuses it)."""
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def run(path: Path, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(o) for o in loads(path).run(None, feeds)]
