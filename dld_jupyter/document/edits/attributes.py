"""Python values to typed ONNX attributes, following the schema's attribute type (or the value's when unknown).

Accepted: int/bool (INT), float (FLOAT), str (STRING), sequences of those (INTS/FLOATS/STRINGS), numpy arrays or
nested lists (TENSOR), lists of arrays (TENSORS), ``onnx_ir.Graph`` (GRAPH) and lists of graphs (GRAPHS).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError

T = ir.AttributeType


def _is_int(x: Any) -> bool:
    return isinstance(x, int | np.integer)


def _is_num(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating)


def infer_type(value: Any) -> ir.AttributeType | None:
    if isinstance(value, bool | int | np.integer):
        return T.INT
    if isinstance(value, float | np.floating):
        return T.FLOAT
    if isinstance(value, str):
        return T.STRING
    if isinstance(value, ir.Graph):
        return T.GRAPH
    if isinstance(value, (np.ndarray, ir.TensorProtocol)):
        return T.TENSOR
    if isinstance(value, Sequence) and value:
        items = list(value)
        if all(_is_int(x) for x in items):
            return T.INTS
        if all(_is_num(x) for x in items):
            return T.FLOATS
        if all(isinstance(x, str) for x in items):
            return T.STRINGS
        if all(isinstance(x, ir.Graph) for x in items):
            return T.GRAPHS
        if all(isinstance(x, np.ndarray) for x in items):
            return T.TENSORS
    return None


def _tensor(value: Any, name: str) -> ir.TensorProtocol:
    if isinstance(value, ir.TensorProtocol):
        return value
    array = np.asarray(value)
    if array.dtype == object:
        raise ValueError("ragged or mixed nested lists")
    return ir.tensor(array, name=name)


def _convert(kind: ir.AttributeType, name: str, value: Any) -> Any:
    if kind == T.INT:
        if isinstance(value, float) or not _is_int(value):
            raise ValueError("an integer is expected")
        return int(value)
    if kind == T.FLOAT:
        if not _is_num(value):
            raise ValueError("a number is expected")
        return float(value)
    if kind == T.STRING:
        if not isinstance(value, str | bytes):
            raise ValueError("a string is expected")
        return value
    if kind == T.GRAPH:
        if not isinstance(value, ir.Graph):
            raise ValueError("an onnx_ir.Graph is expected")
        return value
    if kind == T.TENSOR:
        return _tensor(value, name)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise ValueError("a list is expected")
    items = list(value)
    if kind == T.INTS:
        if not all(_is_int(x) for x in items):
            raise ValueError("a list of integers is expected")
        return [int(x) for x in items]
    if kind == T.FLOATS:
        if not all(_is_num(x) for x in items):
            raise ValueError("a list of numbers is expected")
        return [float(x) for x in items]
    if kind == T.STRINGS:
        if not all(isinstance(x, str) for x in items):
            raise ValueError("a list of strings is expected")
        return items
    if kind == T.GRAPHS:
        if not all(isinstance(x, ir.Graph) for x in items):
            raise ValueError("a list of onnx_ir.Graph is expected")
        return items
    if kind == T.TENSORS:
        return [_tensor(x, f"{name}_{i}") for i, x in enumerate(items)]
    raise ValueError(f"attributes of type {kind.name} cannot be edited here")


def to_attr(name: str, value: Any, type_name: str | None) -> ir.Attr:
    """An ``ir.Attr`` for ``value``; raises DocumentError when it does not fit the type."""
    what = f"Set attribute {name!r}"
    try:
        # an UNDEFINED type (a local function's parameter without one) takes the value's type
        kind = ir.AttributeType[type_name] if type_name and type_name != "UNDEFINED" else infer_type(value)
    except KeyError:
        kind = infer_type(value)
    if kind is None or kind == T.UNDEFINED:
        raise DocumentError(
            what, f"the type of {value!r} cannot be told.", "Pass an int, float, str, list, numpy array or graph."
        )
    try:
        return ir.Attr(name, kind, _convert(kind, name, value))
    except (ValueError, TypeError) as exc:
        raise DocumentError(
            what, f"{exc} for a {kind.name} attribute, got {type(value).__name__}.", f"Pass a {kind.name} value."
        ) from exc
