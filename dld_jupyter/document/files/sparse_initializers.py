"""Sparse initializers survive a round trip: dense while edited (onnx-ir has none), sparse again on save.

Why (issue 41, seed "sparse initializers"): onnx-ir reads no `sparse_initializer`, so opening such a model lost the
tensor (its consumers read a value nobody defines) and saving wrote neither form. On open the main graph's sparse
initializers become dense initializers of the same name, remembered in the ir model's `meta`; on save those still
present are written back as sparse tensors (values of the non-zero elements, linear int64 indices).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnx_ir as ir
from onnx import numpy_helper

from dld_jupyter.document.edits.tensor_layouts import dense_to_sparse, sparse_to_dense

META_KEY = "dld_sparse_initializers"


def densify(proto: onnx.ModelProto) -> list[str]:
    """Move the main graph's sparse initializers into its dense initializers; returns their names."""
    graph = proto.graph
    names = []
    for sparse in graph.sparse_initializer:
        values = numpy_helper.to_array(sparse.values)
        indices = numpy_helper.to_array(sparse.indices)
        dense = sparse_to_dense(values, indices, list(sparse.dims)).astype(values.dtype)
        graph.initializer.append(numpy_helper.from_array(dense, sparse.values.name))
        names.append(sparse.values.name)
    del graph.sparse_initializer[:]
    return names


def remember(model: ir.Model, names: list[str]) -> None:
    if names:
        model.meta[META_KEY] = list(names)


def sparsify(model: ir.Model, proto: onnx.ModelProto) -> None:
    """Write the initializers that were sparse when opened (and still exist) as sparse again, in `proto`."""
    names = set(model.meta.get(META_KEY, ()))
    if not names:
        return
    graph = proto.graph
    kept = []
    for tensor in graph.initializer:
        if tensor.name not in names:
            kept.append(tensor)
            continue
        values, linear, shape = dense_to_sparse(numpy_helper.to_array(tensor))
        graph.sparse_initializer.append(onnx.helper.make_sparse_tensor(
            numpy_helper.from_array(np.asarray(values), tensor.name),
            numpy_helper.from_array(np.asarray(linear, dtype=np.int64), f"{tensor.name}_indices"),
            shape,
        ))
    del graph.initializer[:]
    graph.initializer.extend(kept)
