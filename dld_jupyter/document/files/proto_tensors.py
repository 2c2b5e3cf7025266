"""Every TensorProto of a model file: initializers, sparse parts, attribute tensors, subgraphs and local functions.

Loading checks every external reference and saving finds every data file a model refers to; both walk the same
tensors, so the walk is its own module below `io` and `atomic_save`.
"""

from __future__ import annotations

from collections.abc import Iterator

import onnx


def _graph_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        yield from _node_tensors(node)


def _node_tensors(node: onnx.NodeProto) -> Iterator[onnx.TensorProto]:
    for attr in node.attribute:
        if attr.HasField("t"):
            yield attr.t
        yield from attr.tensors
        if attr.HasField("g"):
            yield from _graph_tensors(attr.g)
        for sub in attr.graphs:
            yield from _graph_tensors(sub)


def all_tensors(proto: onnx.ModelProto) -> Iterator[onnx.TensorProto]:
    yield from _graph_tensors(proto.graph)
    for function in proto.functions:
        for node in function.node:
            yield from _node_tensors(node)
