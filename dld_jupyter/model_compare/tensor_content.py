"""Whether two weights hold the same bytes, read in bounded memory, and their content hash when it is shown.

Both models' weights may be hundreds of MB each, embedded (lazily mapped, document/files/lazy_weights.py) or external.
Contents are compared chunk by chunk (a memcmp, several GB/s, where a cryptographic hash of both sides would run at
~1 GB/s), and an external tensor is read from its own folder through document/files/self_contained.py, so a model opened
from one folder and compared with a copy in another never reads the other's `weights.bin`. A hash is computed only
for a weight whose content differs (the report shows it) and cached per tensor. At most two tensors are in memory
at a time, one per side; an embedded lazily mapped tensor is a view of the file, not a copy.
"""

from __future__ import annotations

import hashlib

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.files.self_contained import in_memory

CHUNK = 16 << 20  # bytes compared or hashed at a time
WHAT = "Compare the weights"


def _flat_bytes(tensor: ir.TensorProtocol) -> np.ndarray:
    if isinstance(tensor, ir.ExternalTensor):
        tensor = in_memory(tensor, WHAT)  # from its own folder; a DocumentError names the file when it cannot be
    if tensor.dtype == ir.DataType.STRING:  # each string with its length, so ("ab", "c") differs from ("a", "bc")
        items = tensor.string_data() if isinstance(tensor, ir.StringTensor) else [tensor.tobytes()]
        return np.frombuffer(b"".join(len(s).to_bytes(8, "little") + s for s in items), dtype=np.uint8)
    array = np.ascontiguousarray(tensor.numpy())
    return array.reshape(-1).view(np.uint8)


class ContentCache:
    """Equality of weight pairs and hashes of single weights, each computed once per compared pair or tensor."""

    def __init__(self) -> None:
        self._equal: dict[tuple[int, int], bool] = {}
        self._hash: dict[int, str] = {}
        self._keep: list[object] = []  # the tensors whose ids key the caches (ids stay unique while they live)

    def same(self, a: ir.TensorProtocol, b: ir.TensorProtocol) -> bool:
        """True when ``a`` and ``b`` (same dtype and shape) hold the same bytes."""
        key = (id(a), id(b))
        found = self._equal.get(key)
        if found is None:
            found = a is b or _equal_bytes(_flat_bytes(a), _flat_bytes(b))
            self._equal[key] = found
            self._keep.extend((a, b))
        return found

    def digest(self, tensor: ir.TensorProtocol) -> str:
        """A short BLAKE2b hash of the tensor's bytes (16 hex digits)."""
        found = self._hash.get(id(tensor))
        if found is None:
            data = _flat_bytes(tensor)
            h = hashlib.blake2b(digest_size=8)
            for start in range(0, len(data), CHUNK):
                h.update(data[start : start + CHUNK].tobytes())
            found = h.hexdigest()
            self._hash[id(tensor)] = found
            self._keep.append(tensor)
        return found


def _equal_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    if len(a) != len(b):
        return False
    return all(np.array_equal(a[s : s + CHUNK], b[s : s + CHUNK]) for s in range(0, len(a), CHUNK))
