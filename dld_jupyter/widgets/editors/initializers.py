"""Initializer editor (seed 000 "Initializers"): every initializer of the model, and the selected node's bindings.

Upper part: list (name, dtype, shape, size, external), create (literal, .npy read by the kernel, generated, sparse,
external), delete (disconnecting users), open in the tensor editor. Lower part, for one selected op node: its
initializer-bound terminals (switch, disconnect, preview) and its free terminals ("connect initializer").
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits import initializer_commands as ic
from dld_jupyter.document.edits.literals import format_literal, parse_array, parse_literal
from dld_jupyter.document.edits.tensors import GENERATORS, element_types, generate, generators_for, parse_dtype
from dld_jupyter.document.files.npy_input import read_npy
from dld_jupyter.document.model.ids import kind_of

from .edit_error import EditError, as_edit_error

PREVIEW_ELEMENTS = 64


def describe(value: ir.Value) -> dict[str, Any]:
    tensor = value.const_value
    shape = [int(d) for d in tensor.shape.numpy()] if tensor is not None else []
    external = isinstance(tensor, ir.ExternalTensor)
    return {
        "name": value.name or "",
        "dtype": tensor.dtype.name.lower() if tensor is not None else "?",
        "shape": shape,
        "size": math.prod(shape),
        "external": external,
        "location": tensor.location if isinstance(tensor, ir.ExternalTensor) else None,
        "users": len(value.uses()),
    }


def preview(value: ir.Value) -> str:
    """The first values of a tensor as a literal (external data is read here, on request)."""
    tensor = value.const_value
    if tensor is None:
        return ""
    try:
        flat = np.asarray(tensor.numpy()).reshape(-1)
    except Exception as exc:
        return f"(cannot read: {exc})"
    text = format_literal(flat[:PREVIEW_ELEMENTS])
    return text[:-1] + ", …]" if flat.size > PREVIEW_ELEMENTS else text


def items(doc: Document) -> list[dict[str, Any]]:
    """Every initializer of the model (the upper list): one row each, rebuilt only when they can have changed."""
    return [{"id": doc.value_id(v), **describe(v)} for v in doc.model.graph.initializers.values()]


def view(doc: Document, selection: Sequence[str]) -> dict[str, Any]:
    """The part that follows the selection: the selected node's terminals, previews, creation choices."""
    graph = doc.model.graph
    node: dict[str, Any] | None = None
    ops = [nid for nid in selection if kind_of(nid) not in ("input", "output")]
    if len(ops) == 1:
        try:
            nv = doc.node(ops[0])
        except Exception:
            nv = None
        if nv is not None:
            terminals = [
                {
                    "index": t.index,
                    "name": t.name,
                    "state": t.state,
                    "value_id": t.value_id,
                    "value_name": t.value_name,
                    "optional": t.optional,
                }
                for t in nv.inputs
                if t.state in ("initializer", "free")
            ]
            node = {"id": nv.id, "name": nv.name, "op_type": nv.op_type, "terminals": terminals}
    types = [t.name.lower() for t in element_types()]
    previews: dict[str, str] = {}
    if node is not None:
        for t in node["terminals"]:  # by name: a model can hold 60k initializers, a node uses a few
            value = graph.initializers.get(t["value_name"] or "")
            if value is not None and doc.value_id(value) == t["value_id"]:
                previews[t["value_id"]] = preview(value)
    return {
        "previews": previews,
        "node": node,
        "dtypes": types,
        "generators": {t: generators_for(parse_dtype(t)) for t in types},
        "generator_labels": GENERATORS,
        "model_dir": str(doc.path.parent) if doc.path else None,
    }


def load_npy(path: str, key: str) -> np.ndarray:
    """Read a .npy file in the kernel through the document layer's checked reader (no pickles; the header is checked
    against the file size before anything is allocated), its refusal shown inline under `key`."""
    try:
        return read_npy(path)
    except DocumentError as exc:
        raise EditError(key, str(exc)) from exc


def _shape_of(text: str) -> list[int]:
    value = parse_literal(text)
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise EditError("create", "The shape is a list of sizes such as [2, 3].")
    return value


def create(doc: Document, msg: dict[str, Any]) -> str:
    """Create an initializer from the create form; returns its value id."""
    key = "create"
    name, mode = str(msg.get("name", "")).strip(), str(msg.get("mode", "literal"))
    try:
        dtype = parse_dtype(str(msg.get("dtype", "float")))
        label = f"Create initializer {name}"
        if mode == "literal":
            text = str(msg.get("text", ""))
            array = parse_array(text) if dtype != ir.DataType.STRING else parse_array(text, np.str_)
            return doc.edit(label, functools.partial(ic.create_typed, name=name, dtype=dtype, array=array))
        if mode == "npy":
            array = load_npy(str(msg.get("path", "")), key)
            if array.dtype != np.dtype(dtype.numpy() if dtype != ir.DataType.STRING else np.str_):
                raise EditError(key, f"The file holds {array.dtype.name}, not {dtype.name.lower()}: pick that type.")
            return doc.edit(label, functools.partial(ic.create_typed, name=name, dtype=dtype, array=array))
        if mode == "generate":
            array = generate(dtype, _shape_of(str(msg.get("shape", ""))), str(msg.get("method", "zeros")))
            return doc.edit(label, functools.partial(ic.create_typed, name=name, dtype=dtype, array=array))
        if mode == "sparse":
            values = parse_array(str(msg.get("values", "")))
            indices = parse_array(str(msg.get("indices", "")), np.int64)
            shape = _shape_of(str(msg.get("dense_shape", "")))
            fn = functools.partial(
                ic.create_sparse, name=name, dtype=dtype, values=values, indices=indices, dense_shape=shape
            )
            return doc.edit(label, fn)
        if mode == "external":
            offset, length = _int_field(msg.get("offset"), 0) or 0, _int_field(msg.get("length"), None)
            fn = functools.partial(
                ic.create_external,
                name=name,
                dtype=dtype,
                shape=_shape_of(str(msg.get("shape", ""))),
                location=str(msg.get("location", "")),
                offset=offset,
                length=length,
                model_dir=doc.path.parent if doc.path else None,
            )
            return doc.edit(label, fn)
        raise EditError(key, f"Unknown way to create an initializer: {mode!r}.")
    except Exception as exc:
        raise as_edit_error(key, exc) from exc


def _int_field(raw: Any, default: int | None) -> int | None:
    text = "" if raw is None else str(raw).strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError as exc:
        raise EditError("create", f"{text!r} is not a whole number of bytes.") from exc


def handle(doc: Document, selection: Sequence[str], msg: dict[str, Any]) -> str | None:
    """Apply one initializer-editor message; returns a value id to open in the tensor editor, if any."""
    kind = msg.get("kind")
    if kind == "init_create":
        return create(doc, msg)
    key = f"init:{msg.get('value_id') or msg.get('index')}"
    try:
        if kind == "init_delete":
            doc.delete_initializer(str(msg["value_id"]))
        elif kind == "init_connect":
            doc.connect_initializer(str(msg["value_id"]), str(msg["node"]), int(msg["index"]))
        elif kind == "init_disconnect":
            doc.disconnect(str(msg["node"]), int(msg["index"]))
    except Exception as exc:
        raise as_edit_error(key, exc) from exc
    return None
