"""Constant nodes in one form (`value`, a typed tensor) before Polygraphy, onnxconverter-common or GraphSurgeon see
them, and a walk over every graph of a protobuf model (main graph, Loop/If/Scan bodies, local function bodies).

A Constant may hold its value as `value_float`, `value_floats`, `value_int` or `value_ints` (ONNX: float32 and int64).
onnxconverter-common converts only `value` tensors to float16, so a `value_float` Constant stayed float32 among
float16 data; GraphSurgeon 0.6 lowers `value_float(s)` with `np.array(...)`, which is float64, so Sanitize turned
a function's float Constant into a double (issue 31, finding 5). Rewriting them as the `value` tensor ONNX defines
them to be keeps their type through both. References to a function's attributes (`ref_attr_name`) stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import onnx
import onnx.numpy_helper

_LIST_FORMS: dict[str, Callable[[onnx.AttributeProto], np.ndarray]] = {
    "value_float": lambda a: np.array(a.f, np.float32),
    "value_floats": lambda a: np.array(list(a.floats), np.float32),
    "value_int": lambda a: np.array(a.i, np.int64),
    "value_ints": lambda a: np.array(list(a.ints), np.int64),
}


Owner = onnx.GraphProto | onnx.FunctionProto


def node_lists(model: onnx.ModelProto) -> Iterator[tuple[Owner, list[onnx.NodeProto]]]:
    """Every graph and function body of `model` with its nodes (subgraphs of nodes included, depth first)."""
    return walk([model.graph, *model.functions])


def walk(roots: list[Owner]) -> Iterator[tuple[Owner, list[onnx.NodeProto]]]:
    """`roots` and every subgraph of their nodes, each with its nodes."""
    stack = list(roots)
    while stack:
        owner = stack.pop()
        nodes = list(owner.node)
        yield owner, nodes
        for node in nodes:
            for attr in node.attribute:
                if attr.HasField("g"):
                    stack.append(attr.g)
                stack.extend(attr.graphs)


def canonical_constants(model: onnx.ModelProto) -> int:
    """Rewrite `value_float(s)`/`value_int(s)` Constants of every graph as `value` tensors, in place; returns how
    many were rewritten."""
    count = 0
    for _owner, nodes in node_lists(model):
        for node in nodes:
            if node.op_type != "Constant" or node.domain not in ("", "ai.onnx") or len(node.attribute) != 1:
                continue
            attr = node.attribute[0]
            form = _LIST_FORMS.get(attr.name)
            if form is None or attr.ref_attr_name:
                continue
            tensor = onnx.numpy_helper.from_array(form(attr), name=node.output[0] if node.output else "")
            del node.attribute[:]
            node.attribute.append(onnx.helper.make_attribute("value", tensor))
            count += 1
    return count
