"""Tensor editor (seed 000 "Tensor Editor"): view any initializer or tensor attribute; edit it through the Document.

Values are edited as a literal up to MAX_EDIT_ELEMENTS (the shape follows the edit), otherwise replaced from a .npy
file; export writes a .npy; Convert changes the element type (not external, bool or string) and reports what the
conversion lost; sparse fields (values, linear indices, dense shape) and external fields (path, offset, length) are
editable. The name is not.
"""

from __future__ import annotations

import functools
import pathlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document import Document
from dld_jupyter.document.edits import initializer_commands as ic
from dld_jupyter.document.edits.literals import format_literal, parse_array
from dld_jupyter.document.edits.tensor_layouts import dense_to_sparse
from dld_jupyter.document.edits.tensors import MAX_EDIT_ELEMENTS, conversion_targets, convert, parse_dtype

from .edit_error import EditError, as_edit_error
from .initializers import load_npy


@dataclass(frozen=True)
class TensorRef:
    """Which tensor the editor shows: an initializer (value id) or a node's TENSOR attribute (not a run's Target)."""

    value_id: str | None = None
    node_id: str | None = None
    attribute: str | None = None

    def payload(self) -> dict[str, Any]:
        return {"value_id": self.value_id, "node_id": self.node_id, "attribute": self.attribute}


def _tensor(doc: Document, ref: TensorRef) -> tuple[str, ir.TensorProtocol | None, np.ndarray | None]:
    """(title, tensor or None, array or None) of the tensor referred to."""
    if ref.value_id is not None:
        graph = doc.model.graph
        value = next((v for v in graph.initializers.values() if doc.value_id(v) == ref.value_id), None)
        if value is None or value.const_value is None:
            return "", None, None
        return value.name or "", value.const_value, None
    assert ref.node_id is not None and ref.attribute is not None
    node = doc.node(ref.node_id)
    array = node.attributes.get(ref.attribute)
    if isinstance(array, list) and array and all(isinstance(x, int | float | str) for x in array):
        array = np.asarray(array)  # INTS/FLOATS/STRINGS open as a 1-D tensor (seed: "any tensor/list parameter")
    if not isinstance(array, np.ndarray):
        return "", None, None
    return f"{node.name}.{ref.attribute}", None, array


def view(doc: Document, ref: TensorRef | None) -> dict[str, Any]:
    if ref is None:
        return {"open": False}
    try:
        title, tensor, array = _tensor(doc, ref)
    except Exception:
        return {"open": False}
    if tensor is None and array is None:
        return {"open": False}
    external = isinstance(tensor, ir.ExternalTensor)
    if tensor is not None:
        dtype, shape = tensor.dtype, [int(d) for d in tensor.shape.numpy()]
    else:
        assert array is not None
        dtype, shape = ir.DataType.from_numpy(array.dtype), list(array.shape)
    size = int(np.prod(shape)) if shape else 1
    is_list = ref.attribute is not None and not isinstance(
        doc.node(str(ref.node_id)).attributes.get(ref.attribute), np.ndarray
    )
    convertible_here = not external and not is_list  # a list attribute's element type is fixed by the schema
    editable = size <= MAX_EDIT_ELEMENTS
    out: dict[str, Any] = {
        "open": True,
        "target": ref.payload(),  # the wire name the front end reads (js/src/widgets/editors)
        "name": title,
        "dtype": dtype.name.lower(),
        "shape": shape,
        "size": size,
        "editable": editable,
        "external": None,
        "text": "",
        "sparse": None,
        "targets": [t.name.lower() for t in conversion_targets(dtype)] if convertible_here else [],
        "is_initializer": ref.value_id is not None,
    }
    if isinstance(tensor, ir.ExternalTensor):
        out["external"] = {"location": tensor.location, "offset": tensor.offset or 0, "length": tensor.length}
        return out  # values of external data are read on request (Export), never to draw the editor
    if editable:
        data = np.asarray(array if array is not None else tensor.numpy() if tensor is not None else [])
        out["text"] = format_literal(data)
        if ref.value_id is not None and dtype != ir.DataType.STRING:
            values, indices, dense_shape = dense_to_sparse(data)
            out["sparse"] = {
                "values": format_literal(values),
                "indices": format_literal(indices),
                "dense_shape": format_literal(dense_shape),
            }
    return out


def _current(doc: Document, ref: TensorRef) -> tuple[ir.DataType, np.ndarray]:
    _title, tensor, array = _tensor(doc, ref)
    if tensor is not None:
        return tensor.dtype, np.asarray(tensor.numpy())
    if array is None:
        raise EditError("tensor", "The tensor is gone (undone or deleted).")
    return ir.DataType.from_numpy(array.dtype), array


def _store(doc: Document, ref: TensorRef, array: np.ndarray, label: str, dtype: ir.DataType | None = None) -> None:
    if ref.value_id is not None:
        doc.edit(label, functools.partial(ic.set_typed, value_id=ref.value_id, array=array, dtype=dtype))
    else:
        assert ref.node_id is not None and ref.attribute is not None
        doc.set_attribute(ref.node_id, ref.attribute, array)


def handle(doc: Document, ref: TensorRef | None, msg: dict[str, Any]) -> list[str]:
    """Apply one tensor-editor message; returns warnings to show (conversion losses)."""
    kind = str(msg.get("kind"))
    key = {"tensor_external": "external", "tensor_sparse": "sparse", "tensor_convert": "convert"}.get(kind, "tensor")
    if ref is None:
        raise EditError(key, "No tensor is open.")
    try:
        return _handle(doc, ref, kind, msg)
    except Exception as exc:
        raise as_edit_error(key, exc) from exc


def _handle(doc: Document, ref: TensorRef, kind: str, msg: dict[str, Any]) -> list[str]:
    if kind == "tensor_export":
        path = pathlib.Path(str(msg.get("path", ""))).expanduser()
        if path.suffix != ".npy":
            raise EditError("tensor", "Export to a path ending in .npy.")
        np.save(path, _current(doc, ref)[1], allow_pickle=False)
        return [f"Saved {path}."]
    if kind == "tensor_external" and ref.value_id is not None:
        length_text = str(msg.get("length") or "").strip()
        fn = functools.partial(
            ic.set_external,
            value_id=ref.value_id,
            location=str(msg.get("location", "")),
            offset=_int(str(msg.get("offset") or "0")),
            length=_int(length_text) if length_text else None,
            model_dir=doc.path.parent if doc.path else None,
        )
        doc.edit("Edit external data", fn)
        return []
    dtype, current = _current(doc, ref)
    if kind == "tensor_set":
        if current.size > MAX_EDIT_ELEMENTS:
            raise EditError("tensor", f"Tensors above {MAX_EDIT_ELEMENTS:,} elements are replaced from a .npy file.")
        numpy_type = np.str_ if dtype == ir.DataType.STRING else current.dtype
        _store(doc, ref, parse_array(str(msg.get("text", "")), numpy_type), "Edit tensor")
    elif kind == "tensor_load":
        array = load_npy(str(msg.get("path", "")), "tensor")
        _store(doc, ref, array, "Replace tensor from .npy", dtype if ref.value_id else None)
    elif kind == "tensor_convert":
        new_type = parse_dtype(str(msg.get("dtype", "")))
        if ref.value_id is not None:
            convert_fn = functools.partial(ic.convert_initializer, value_id=ref.value_id, dtype=new_type)
            return doc.edit(f"Convert to {new_type.name.lower()}", convert_fn)
        converted, warnings = convert(current, dtype, new_type)
        _store(doc, ref, converted, "Convert tensor")
        return warnings
    elif kind == "tensor_sparse" and ref.value_id is not None:
        fn = functools.partial(
            ic.set_sparse,
            value_id=ref.value_id,
            values=parse_array(str(msg.get("values", "")), current.dtype),
            indices=parse_array(str(msg.get("indices", "")), np.int64),
            dense_shape=parse_array(str(msg.get("dense_shape", "")), np.int64).tolist(),
        )
        doc.edit("Edit sparse tensor", fn)
    return []


def _int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError as exc:
        raise EditError("external", f"{text!r} is not a whole number of bytes.") from exc
