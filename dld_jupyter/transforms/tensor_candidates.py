"""What Convert Tensors can convert (seed 000 "Convert Tensors"): the dialog's two panels as data.

Top panel: the initializers of the main graph, filtered by name (a regular expression, searched) and data type.
Bottom panel: the tensor and list attributes of its nodes (TENSOR, TENSORS, INTS, FLOATS: a Constant's value,
ConstantOfShape's fill, a Reshape-free `shape` list...), filtered by node or attribute name and data type. A list
attribute's type is int64 (INTS) or float (FLOATS), what ONNX stores them as. Each row says whether it can be
converted at all (`convertible`: not bool, string or complex; external initializers must be loaded first).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import onnx_ir as ir

from dld_jupyter.document import Document
from dld_jupyter.document.edits.tensors import convertible, parse_dtype
from dld_jupyter.transforms.batch_errors import BadOption

DT = ir.DataType
AT = ir.AttributeType
LIST_TYPES = {AT.INTS: DT.INT64, AT.FLOATS: DT.FLOAT}


@dataclass(frozen=True)
class InitializerCandidate:
    value_id: str
    name: str
    dtype: str
    shape: list[int]
    external: bool
    convertible: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AttributeCandidate:
    node_id: str
    node_name: str
    op_type: str
    attribute: str
    kind: str  # "tensor", "tensors", "ints", "floats"
    dtype: str
    shape: list[int]  # the tensor's shape, or [length] of a list, or [count] of a tensor list
    convertible: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pattern(text: str | None) -> re.Pattern[str] | None:
    if not text:
        return None
    try:
        return re.compile(text)
    except re.error as error:
        raise BadOption(
            "Filter tensors", f"{text!r} is not a regular expression ({error}).", "Fix the pattern."
        ) from None


def _dtype_filter(dtype: str | DT | None) -> DT | None:
    if dtype is None or dtype == "":
        return None
    try:
        return parse_dtype(dtype)
    except Exception as error:
        raise BadOption("Filter tensors", str(error), "Use float, float16, int64, ...") from None


def list_initializers(
    doc: Document, name: str | None = None, dtype: str | DT | None = None
) -> list[InitializerCandidate]:
    """The top panel: initializers whose name matches `name` (regex) and whose type is `dtype`."""
    pattern, wanted = _pattern(name), _dtype_filter(dtype)
    out = []
    for value in doc.model.graph.initializers.values():
        tensor = value.const_value
        if tensor is None or (pattern and not pattern.search(value.name or "")):
            continue
        if wanted is not None and tensor.dtype != wanted:
            continue
        external = isinstance(tensor, ir.ExternalTensor)
        out.append(
            InitializerCandidate(
                doc.value_id(value),
                value.name or "",
                tensor.dtype.name.lower(),
                [int(d) for d in tensor.shape.numpy()],
                external,
                convertible(tensor.dtype) and not external,
            )
        )
    return out


def _attribute_row(doc: Document, node: ir.Node, attr: ir.Attr) -> AttributeCandidate | None:
    base = (doc.node_id(node), node.name or "", node.op_type, attr.name)
    if attr.type == AT.TENSOR:
        tensor = attr.as_tensor()
        dtype, shape = tensor.dtype, [int(d) for d in tensor.shape.numpy()]
        return AttributeCandidate(*base, "tensor", dtype.name.lower(), shape, convertible(dtype))
    if attr.type == AT.TENSORS:
        tensors = list(attr.as_tensors())
        if not tensors:
            return None
        dtype = tensors[0].dtype
        ok = all(convertible(t.dtype) for t in tensors)
        return AttributeCandidate(*base, "tensors", dtype.name.lower(), [len(tensors)], ok)
    if attr.type in LIST_TYPES:
        dtype = LIST_TYPES[attr.type]
        return AttributeCandidate(*base, attr.type.name.lower(), dtype.name.lower(), [len(attr.value)], True)
    return None


def list_attributes(doc: Document, name: str | None = None, dtype: str | DT | None = None) -> list[AttributeCandidate]:
    """The bottom panel: tensor/list attributes of main-graph nodes; `name` (regex) matches the node's name, its
    op type or the attribute's name; `dtype` the tensor's or list's type."""
    pattern, wanted = _pattern(name), _dtype_filter(dtype)
    out = []
    for node in doc.model.graph:
        for attr in node.attributes.values():
            if not isinstance(attr, ir.Attr):
                continue
            row = _attribute_row(doc, node, attr)
            if row is None or (wanted is not None and row.dtype != wanted.name.lower()):
                continue
            if pattern and not any(pattern.search(t) for t in (row.node_name, row.op_type, row.attribute)):
                continue
            out.append(row)
    return out
