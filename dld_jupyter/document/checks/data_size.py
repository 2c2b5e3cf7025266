"""Tensor data whose size does not match its type and shape: an error of the type check list.

Why (issue 31, finding 7): the ONNX checks run on a weightless skeleton, so an initializer whose raw data is longer
or shorter than its dtype and shape need passed `dld check` with 0 errors while ONNX Runtime refuses to load the
model. Checked here without reading any weight: the length of an embedded tensor's `raw_data` (or the count of its
typed values), and the `length` an external tensor declares. Lazily read initializers (lazy_weights.py) are only
made lazy when their byte span matches, so they need no check. Each problem is bound to the node that reads the
tensor: the first consumer of an initializer, the node holding a tensor attribute, or for anything inside a
subgraph the top-level node that owns it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import NamedTuple

import onnx
import onnx_ir as ir

from dld_jupyter.document.checks.diagnostics import Diagnostic


class Problem(NamedTuple):
    node: ir.Node | None  # the node to bind it to
    tensor: str  # the tensor's name ("" when it has none)
    message: str
    hint: str


_HINT_EMBEDDED = (
    "Set the tensor's values again (Initializers panel, or 'Replace from .npy'), or correct its shape so that it "
    "matches the data."
)
_HINT_EXTERNAL = "Point the tensor at data of the right size, or correct its external 'length' or its shape."
# Packed several to an entry of int32_data: their typed-field count is not one per element (not checked).
_PACKED = {"INT4", "UINT4", "FLOAT4E2M1", "INT2", "UINT2", "FLOAT6E2M3", "FLOAT6E3M2"}


def data_size_problems(model: ir.Model) -> list[Problem]:
    """Every tensor of the main graph, its subgraphs' initializers and tensor attributes whose data size is wrong."""
    problems: list[Problem] = []
    for value in model.graph.initializers.values():
        problem = _problem(value.const_value, f"Initializer {value.name!r}")
        if problem is not None:
            users = [use.node for use in value.uses() if use.node.graph is model.graph]
            problems.append(Problem(users[0] if users else None, value.name or "", *problem))
    for node in model.graph:
        for tensor, where in _node_tensors(node):
            problem = _problem(tensor, where)
            if problem is not None and tensor is not None:
                problems.append(Problem(node, tensor.name or "", *problem))
    return problems


def data_size_diagnostics(model: ir.Model, ids: Callable[[ir.Node], str | None]) -> list[Diagnostic]:
    """The problems as error diagnostics bound to ``ids(node)`` (the background check adds them: its child process
    sees only a weightless skeleton)."""
    return [
        Diagnostic("error", p.message, ids(p.node) if p.node is not None else None, p.hint, "structure")
        for p in data_size_problems(model)
    ]


def _node_tensors(node: ir.Node, prefix: str = "") -> Iterator[tuple[ir.TensorProtocol | None, str]]:
    """The tensors of ``node``'s attributes and of the initializers and nodes of its subgraphs, with a label."""
    label = f"{prefix}{node.name or node.op_type}"
    for attr in node.attributes.values():
        if attr.is_ref() or attr.value is None:
            continue
        if attr.type == ir.AttributeType.TENSOR:
            yield attr.value, f"Attribute {attr.name!r} of node {label!r}"
        elif attr.type == ir.AttributeType.TENSORS:
            for i, tensor in enumerate(attr.value):
                yield tensor, f"Tensor {i} of attribute {attr.name!r} of node {label!r}"
        elif attr.type in (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS):
            for graph in [attr.value] if attr.type == ir.AttributeType.GRAPH else attr.value:
                for value in graph.initializers.values():
                    yield value.const_value, f"Initializer {value.name!r} of {label!r}/{attr.name}"
                for inner in graph:
                    yield from _node_tensors(inner, f"{label}/{attr.name}/")


def _problem(tensor: ir.TensorProtocol | None, what: str) -> tuple[str, str] | None:
    if tensor is None or tensor.dtype in (ir.DataType.STRING, ir.DataType.UNDEFINED):
        return None
    try:
        elements = math.prod(int(d) for d in tensor.shape.numpy())
        needed = math.ceil(tensor.dtype.bitwidth * elements / 8)
    except (TypeError, ValueError):  # a symbolic dimension or an unknown width: onnx.checker reports those
        return None
    kind = f"{tensor.dtype.name.lower()} tensor of shape {list(tensor.shape.numpy())}"
    if isinstance(tensor, ir.ExternalTensor):
        if tensor.length is None or tensor.length == needed:
            return None
        return (
            f"{what} declares {tensor.length} bytes of external data (in {str(tensor.location)!r}), but a {kind} "
            f"needs {needed}: ONNX Runtime refuses to load the model.",
            _HINT_EXTERNAL,
        )
    if not isinstance(tensor, ir.serde.TensorProtoTensor):
        return None  # built in memory (edits) or read lazily: its size follows its array
    return _embedded_problem(tensor.raw, what, kind, elements, needed)


def _embedded_problem(
    proto: onnx.TensorProto, what: str, kind: str, elements: int, needed: int
) -> tuple[str, str] | None:
    """Raw bytes against ``needed``; else the count of typed values (one per element, two for complex)."""
    if proto.data_location == onnx.TensorProto.EXTERNAL:
        return None
    if proto.HasField("raw_data"):
        have = len(proto.raw_data)
        if have == needed:
            return None
        relation = "more" if have > needed else "fewer"
        return (
            f"{what} holds {have} bytes of raw data, {relation} than the {needed} a {kind} needs: "
            "ONNX Runtime refuses to load the model.",
            _HINT_EMBEDDED,
        )
    if onnx.TensorProto.DataType.Name(proto.data_type) in _PACKED:
        return None
    field = onnx.helper.tensor_dtype_to_field(proto.data_type)
    per_element = 2 if proto.data_type in (onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128) else 1
    count = len(getattr(proto, field))
    if count == elements * per_element:
        return None
    return (
        f"{what} holds {count} values, but a {kind} needs {elements * per_element}: "
        "ONNX Runtime refuses to load the model.",
        _HINT_EMBEDDED,
    )
