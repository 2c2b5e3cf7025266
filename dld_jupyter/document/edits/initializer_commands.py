"""Initializer edits beyond value_edits: typed creation, generation, dtype conversion, external and sparse layouts.

Each function validates everything first (DocumentError, nothing changed), then applies primitive commands through
``do``; call them through ``Document.edit(label, fn)`` so they are one undo step. Sparse initializers are kept
dense in the model (onnx-ir has no sparse initializers); the sparse fields are a way of writing the values.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.property_edits import initializer
from dld_jupyter.document.edits.structure_edits import Do, check_value_name
from dld_jupyter.document.edits.tensor_layouts import external_tensor, sparse_to_dense, validate_external
from dld_jupyter.document.edits.tensors import (
    check_element_kind,
    check_fits,
    check_shape,
    convert,
    numpy_dtype,
    parse_dtype,
)
from dld_jupyter.document.model.errors import DocumentError


def _array_tensor(array: np.ndarray, dtype: ir.DataType, name: str, what: str) -> ir.TensorProtocol:
    try:
        data = np.asarray(array)
        check_element_kind(data, dtype, what)
        if dtype == ir.DataType.STRING:
            return ir.StringTensor(np.asarray(data, dtype=object).astype(str).astype(object), name=name)
        check_fits(data, dtype, what)
        return ir.tensor(data.astype(numpy_dtype(dtype), copy=False), dtype=dtype, name=name)
    except (ValueError, TypeError, OverflowError) as exc:
        raise DocumentError(what, f"the values do not fit {dtype.name.lower()} ({exc}).", "Check the values.") from exc


def _shape(tensor: ir.TensorProtocol) -> ir.Shape:
    return ir.Shape(list(tensor.shape.numpy()))  # tensors have static shapes


def _value_for(tensor: ir.TensorProtocol, name: str) -> ir.Value:
    return ir.Value(name=name, type=ir.TensorType(tensor.dtype), shape=_shape(tensor), const_value=tensor)


def _replace(do: Do, value: ir.Value, tensor: ir.TensorProtocol) -> None:
    do(c.SetConstValue(value, tensor, ir.TensorType(tensor.dtype), _shape(tensor)))


def create_typed(ctx: Context, do: Do, name: str, dtype: Any, array: Any) -> str:
    """A new initializer holding ``array`` converted to ``dtype`` (the type the user picked wins)."""
    what = f"Create initializer {name!r}"
    check_value_name(ctx, name, what)
    tensor = _array_tensor(np.asarray(array), parse_dtype(dtype), name, what)
    value = _value_for(tensor, name)
    do(c.AddInitializer(value))
    return ctx.ids.value_id(value)


def set_typed(ctx: Context, do: Do, value_id: str, array: Any, dtype: Any = None) -> None:
    """Replace the values of an initializer; it keeps its type unless ``dtype`` is given."""
    what = f"Set initializer {value_id}"
    value = initializer(ctx, value_id, what)
    assert value.name is not None and value.const_value is not None
    target = parse_dtype(dtype) if dtype is not None else value.const_value.dtype
    _replace(do, value, _array_tensor(np.asarray(array), target, value.name, what))


def convert_initializer(ctx: Context, do: Do, value_id: str, dtype: Any) -> list[str]:
    """Convert an embedded initializer to ``dtype``; returns the precision warnings."""
    target = parse_dtype(dtype)
    what = f"Convert initializer {value_id} to {target.name.lower()}"
    value = initializer(ctx, value_id, what)
    tensor = value.const_value
    assert value.name is not None and tensor is not None
    if isinstance(tensor, ir.ExternalTensor):
        raise DocumentError(what, "external data cannot be converted.", "Load it with 'Replace from .npy' first.")
    converted, warnings = convert(tensor.numpy(), tensor.dtype, target)
    _replace(do, value, _array_tensor(converted, target, value.name, what))
    return warnings


def _model_dir(model_dir: str | pathlib.Path | None) -> pathlib.Path | None:
    return None if model_dir is None else pathlib.Path(model_dir)


def create_external(
    ctx: Context,
    do: Do,
    name: str,
    dtype: Any,
    shape: Any,
    location: str,
    offset: int = 0,
    length: int | None = None,
    model_dir: str | pathlib.Path | None = None,
) -> str:
    """A new initializer whose bytes stay in a file beside the model (read lazily)."""
    what = f"Create initializer {name!r}"
    check_value_name(ctx, name, what)
    kind, root = parse_dtype(dtype), _model_dir(model_dir)
    ref = validate_external(root, location, offset, length, kind, shape)
    assert root is not None
    value = _value_for(external_tensor(ref, root, kind, shape, name), name)
    do(c.AddInitializer(value))
    return ctx.ids.value_id(value)


def set_external(
    ctx: Context,
    do: Do,
    value_id: str,
    location: str,
    offset: int = 0,
    length: int | None = None,
    model_dir: str | pathlib.Path | None = None,
) -> None:
    """Point an initializer at (other) external bytes; its type and shape stay."""
    value = initializer(ctx, value_id, f"Set external data of {value_id}")
    tensor = value.const_value
    assert value.name is not None and tensor is not None
    shape = check_shape(list(tensor.shape), "External initializer")
    root = _model_dir(model_dir)
    ref = validate_external(root, location, offset, length, tensor.dtype, shape)
    assert root is not None
    _replace(do, value, external_tensor(ref, root, tensor.dtype, shape, value.name))


def create_sparse(ctx: Context, do: Do, name: str, dtype: Any, values: Any, indices: Any, dense_shape: Any) -> str:
    """A new initializer from sparse fields (stored dense)."""
    return create_typed(ctx, do, name, dtype, sparse_to_dense(values, indices, dense_shape))


def set_sparse(ctx: Context, do: Do, value_id: str, values: Any, indices: Any, dense_shape: Any) -> None:
    set_typed(ctx, do, value_id, sparse_to_dense(values, indices, dense_shape))
