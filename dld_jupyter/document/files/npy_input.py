"""Reading a .npy file from outside into a tensor: the header checked against the file before any data is read.

Why not `np.load(allow_pickle=False)` alone: on hostile files it raises EOFError, tokenize.TokenError, BadZipFile
or MemoryError (none of which the editor caught), and it allocates what the header claims before reading, so a
120-byte file declaring a shape of 10^14 asks for 364 TiB. Here the header is parsed on its own, the array's size
is computed from it and must equal the bytes that follow, object (pickled) and structured dtypes are refused, and
only then is the data read, into exactly that many bytes. Every refusal is a `DocumentError` with what, why, fix.
"""

from __future__ import annotations

import math
import os
import tokenize
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.lib import format as npy_format

from dld_jupyter.document.model.errors import DocumentError

MAGIC = b"\x93NUMPY"
MAX_HEADER_BYTES = 10_000  # numpy's own default limit for a header read without allow_pickle
MAX_ARRAY_BYTES = 16 << 30  # a single weight tensor beyond 16 GiB is not something an editor should load at once
_HEADER_ERRORS = (ValueError, TypeError, SyntaxError, tokenize.TokenError, EOFError, MemoryError, RecursionError)


def _header(handle: BinaryIO, what: str) -> tuple[tuple[int, ...], bool, np.dtype[np.generic]]:
    fix = "save the array again with np.save(path, array)."
    try:
        version = npy_format.read_magic(handle)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(handle, max_header_size=MAX_HEADER_BYTES)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(handle, max_header_size=MAX_HEADER_BYTES)
        else:
            raise DocumentError(what, f"it is .npy format version {version[0]}.{version[1]}, not 1.0 or 2.0.", fix)
    except _HEADER_ERRORS as exc:
        raise DocumentError(what, f"its .npy header is malformed ({type(exc).__name__}: {exc}).", fix) from exc
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise DocumentError(what, f"its header declares the shape {shape!r}: sizes must be whole and >= 0.", fix)
    return shape, bool(fortran), dtype


def read_npy(path: str | os.PathLike[str]) -> np.ndarray:
    """The one array of the .npy file at `path` (expanded `~`), checked as the module docstring says."""
    file = Path(path).expanduser()
    what = f"Load {file.name or file}"
    if not file.exists():
        raise DocumentError(what, f"no file {str(file)!r}.", "check the path (relative to the kernel's folder).")
    if not file.is_file():
        raise DocumentError(what, f"{str(file)!r} is not a regular file.", "pass a .npy file written by np.save.")
    try:
        with open(file, "rb") as handle:
            start = handle.read(len(MAGIC))
            if start.startswith(b"PK"):
                raise DocumentError(what, "it is an .npz archive of several arrays.", "save one array with np.save.")
            if start != MAGIC:
                raise DocumentError(what, "it is not a .npy file (no NUMPY magic).", "save the array with np.save.")
            handle.seek(0)
            shape, fortran, dtype = _header(handle, what)
            if dtype.hasobject:
                raise DocumentError(
                    what, "it holds Python objects (a pickle), which could run code.", "save a numeric or string array."
                )
            if dtype.fields is not None or dtype.subdtype is not None or dtype.itemsize == 0:
                raise DocumentError(
                    what,
                    f"its dtype {dtype} is not a plain tensor element type.",
                    "save an array of numbers or strings.",
                )
            nbytes = math.prod(shape) * dtype.itemsize
            if nbytes > MAX_ARRAY_BYTES:
                raise DocumentError(
                    what,
                    f"its header declares {nbytes:,} bytes of data (shape {shape}).",
                    f"load tensors up to {MAX_ARRAY_BYTES >> 30} GiB.",
                )
            available = os.fstat(handle.fileno()).st_size - handle.tell()
            if available != nbytes:
                cut = "cut short" if available < nbytes else "followed by extra bytes"
                raise DocumentError(
                    what,
                    f"the data is {cut}: shape {shape} of {dtype} needs {nbytes:,} bytes, "
                    f"the file holds {available:,}.",
                    "save the array again with np.save.",
                )
            buffer = bytearray(nbytes)
            if handle.readinto(buffer) != nbytes:
                raise DocumentError(what, "the file changed while it was read.", "load it again.")
    except OSError as exc:
        raise DocumentError(
            what, f"it cannot be read ({exc.strerror or exc}).", "check the file's permissions."
        ) from exc
    array = np.frombuffer(buffer, dtype=dtype)
    return array.reshape(shape[::-1]).transpose() if fortran else array.reshape(shape)
