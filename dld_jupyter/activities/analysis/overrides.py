"""Analysis overrides as protobuf edits (seed 001 §4.3 "Runtime options"): an attribute's new value in its declared
type, an attribute left at the schema's default made explicit, and the copies an override keeps to revert exactly.
Apart from the engine so each stays a readable size; only `engine.AnalysisEngine.override` uses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from dld_jupyter.activities.errors import SpecError


def schema_attribute(node: onnx.NodeProto, name: str) -> int | None:
    """The type of attribute `name` in the operator's schema, when it has one and the node leaves it at default."""
    try:
        schema = onnx.defs.get_schema(node.op_type, domain=node.domain)
    except onnx.defs.SchemaError:
        return None
    attribute = schema.attributes.get(name)
    kind: Any = attribute.type if attribute is not None else None  # a pybind11 enum, an int at run time
    return int(kind) if kind is not None else None


def copy_proto(proto: onnx.AttributeProto | onnx.TensorProto) -> onnx.AttributeProto | onnx.TensorProto:
    copy = type(proto)()
    copy.CopyFrom(proto)
    return copy


def attribute_value(name: str, value: Any, kind: int) -> onnx.AttributeProto:
    if isinstance(value, np.ndarray) or kind == onnx.AttributeProto.TENSOR:
        value = numpy_helper.from_array(np.asarray(value))
    try:
        return helper.make_attribute(name, value, attr_type=kind)
    except (TypeError, ValueError) as error:
        raise SpecError(f"override {name!r}: {value!r} does not fit the attribute ({error})") from error
