"""Sparse and external initializer layouts: validation of what the user typed, before any edit is made.

Sparse (ONNX SparseTensorProto): ``values`` [NNZ], ``indices`` [NNZ] (linear) or [NNZ, rank] (coordinates),
sorted and unique, within ``dense_shape``. External: ``location`` relative to the model's folder (absolute paths,
``..`` and links leading out are refused: CVE-2024-27318/27319), ``offset``/``length`` within the file, and a
length matching the tensor's size.
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.edits.tensors import check_shape
from dld_jupyter.document.model.errors import DocumentError


# ------------------------------------------------------------------ sparse
def sparse_to_dense(values: Any, indices: Any, dense_shape: Any) -> np.ndarray:
    """The dense tensor of a sparse one; raises DocumentError naming the first problem."""
    what = "Sparse initializer"
    shape = check_shape(dense_shape, what)
    vals = np.asarray(values)
    if vals.ndim != 1:
        raise DocumentError(what, f"values must be one-dimensional [NNZ], got shape {list(vals.shape)}.", "Flatten.")
    idx = np.asarray(indices)
    if idx.size and idx.dtype.kind not in "iu":
        raise DocumentError(what, "indices must be integers.", "Write them as [0, 5, 7] or [[0, 1], [2, 0]].")
    idx = idx.astype(np.int64) if idx.size else np.zeros((0,), dtype=np.int64)
    nnz = vals.shape[0]
    size = math.prod(shape)
    if idx.ndim == 1 and idx.shape[0] == nnz:
        linear = idx
        if ((linear < 0) | (linear >= size)).any():
            raise DocumentError(what, f"a linear index is outside 0..{size - 1}.", "Check the indices.")
    elif idx.ndim == 2 and idx.shape == (nnz, len(shape)):
        if ((idx < 0) | (idx >= np.array(shape, dtype=np.int64))).any():
            raise DocumentError(what, f"an index is outside the dense shape {list(shape)}.", "Check the indices.")
        linear = np.ravel_multi_index(tuple(idx.T), shape) if nnz else np.zeros((0,), dtype=np.int64)
    else:
        raise DocumentError(
            what,
            f"indices of shape {list(idx.shape)} do not fit {nnz} values of a rank-{len(shape)} tensor.",
            f"Give [{nnz}] linear indices or [{nnz}, {len(shape)}] coordinates.",
        )
    if nnz > 1 and not (np.diff(linear) > 0).all():
        raise DocumentError(what, "indices must be sorted and unique.", "Sort them in row-major order.")
    dense = np.zeros(size, dtype=vals.dtype) if vals.dtype.kind != "U" else np.full(size, "", dtype=vals.dtype)
    dense[linear] = vals
    return dense.reshape(shape)


def dense_to_sparse(dense: Any) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(values, linear indices, dense shape) of the non-default elements of ``dense``."""
    array = np.asarray(dense)
    flat = array.reshape(-1)
    linear = np.flatnonzero(flat != ("" if array.dtype.kind == "U" else 0)).astype(np.int64)
    return flat[linear], linear, list(array.shape)


# ------------------------------------------------------------------ external
@dataclass(frozen=True)
class ExternalRef:
    """A checked external reference: where the bytes are and how many."""

    location: str
    offset: int
    length: int
    path: pathlib.Path


def expected_bytes(dtype: ir.DataType, shape: tuple[int, ...]) -> int | None:
    if dtype == ir.DataType.STRING:
        return None
    return math.ceil(math.prod(shape) * dtype.bitwidth / 8)


def check_location(model_dir: pathlib.Path | None, location: str, what: str) -> pathlib.Path:
    """The file ``location`` names, refused when it leaves the model's folder or the model has no folder."""
    if model_dir is None:
        raise DocumentError(what, "the model is only in memory, so nothing is relative to it.", "Save it first.")
    text = str(location).strip()
    if not text:
        raise DocumentError(what, "the path is empty.", "Name a file beside the model, e.g. weights.bin.")
    pure_posix, pure_win = pathlib.PurePosixPath(text), pathlib.PureWindowsPath(text)
    if pure_posix.is_absolute() or pure_win.is_absolute() or pure_win.drive or text.startswith(("\\", "/")):
        raise DocumentError(what, f"{text!r} is absolute.", "Give a path relative to the model's folder.")
    if ".." in pure_posix.parts or ".." in pure_win.parts:
        raise DocumentError(what, f"{text!r} leaves the model's folder.", "Keep the file in the model's folder.")
    root = model_dir.resolve()
    path = (root / text).resolve()
    if root != path and root not in path.parents:
        raise DocumentError(what, f"{text!r} links outside the model's folder.", "Copy the file beside the model.")
    if not path.is_file():
        raise DocumentError(what, f"the file {text!r} does not exist beside the model.", "Check the path.")
    return path


def validate_external(
    model_dir: pathlib.Path | None,
    location: str,
    offset: Any,
    length: Any,
    dtype: ir.DataType,
    shape: Any,
) -> ExternalRef:
    """Check an external reference for a tensor of ``dtype``/``shape``; ``length`` None means "its size"."""
    what = "External initializer"
    dims = check_shape(shape, what)
    path = check_location(model_dir, location, what)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise DocumentError(what, f"the offset {offset!r} is not a non-negative integer.", "Give a byte offset.")
    needed = expected_bytes(dtype, dims)
    if length is None:
        if needed is None:
            raise DocumentError(what, "string tensors need an explicit length.", "Give the length in bytes.")
        length = needed
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise DocumentError(what, f"the length {length!r} is not a non-negative integer.", "Give a byte count.")
    if needed is not None and length != needed:
        raise DocumentError(
            what,
            f"{length} bytes do not hold a {dtype.name.lower()} tensor of shape {list(dims)} ({needed} bytes).",
            "Fix the length or the shape.",
        )
    size = path.stat().st_size
    if offset + length > size:
        raise DocumentError(
            what, f"bytes {offset}..{offset + length} go past the end of the file ({size} bytes).", "Check offset."
        )
    return ExternalRef(str(pathlib.PurePosixPath(*pathlib.PurePath(location.strip()).parts)), offset, length, path)


def external_tensor(
    ref: ExternalRef, model_dir: pathlib.Path, dtype: ir.DataType, shape: Any, name: str
) -> ir.ExternalTensor:
    """A lazy tensor reading ``ref`` (nothing is read until its values are used)."""
    dims = check_shape(shape, "External initializer")
    folder = str(model_dir.absolute())  # the tensor keeps its folder: a later Save As or chdir changes nothing
    return ir.ExternalTensor(
        ref.location, ref.offset, ref.length, dtype, shape=ir.Shape(list(dims)), name=name, base_dir=folder
    )
