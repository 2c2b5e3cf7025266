"""Checks on the file as written, for what the onnx-ir model hides: ``dld check`` agrees with the full onnx.checker.

Why a second pass: building the ir model normalises away some errors, so a check of the ir model (the skeleton of
checks.py) cannot see them. A duplicated initializer name keeps one of the two (saving then drops the other),
conflicting ``value_info`` becomes the value's declared type, sparse initializers become dense, two local
functions with one id become one. Here the raw ModelProto is checked directly: explicit structural checks with
clear messages, then ``onnx.checker.check_model(full_check=True)`` on a weightless copy (large initializers
become typed graph inputs, as in the skeleton) as the safety net for anything else it rejects. Messages naming a
node (``node name: X``) are bound to that node.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping

import onnx
import onnx.checker
from google.protobuf.message import Message

from dld_jupyter.document.checks.checks import Diagnostic

SMALL_ELEMENTS = 1024  # initializers up to this size keep their data in the weightless copy
_NODE_NAME_RE = re.compile(r"node name: ([^)\s]+)\)")


def _size(tensor: onnx.TensorProto) -> int:
    count = 1
    for dim in tensor.dims:
        count *= max(int(dim), 0)
    return count


def _graphs(graph: onnx.GraphProto, where: str) -> Iterator[tuple[onnx.GraphProto, str]]:
    yield graph, where
    for node in graph.node:
        for attr in node.attribute:
            subs = [attr.g] if attr.HasField("g") else []
            for index, sub in enumerate([*subs, *attr.graphs]):
                yield from _graphs(sub, f"{where}/{node.name or node.op_type}.{attr.name}[{index}]")


def _structural(proto: onnx.ModelProto) -> Iterator[tuple[str, str, str]]:
    """(message, fix, node name) for the errors the ir model cannot show."""
    for graph, where in _graphs(proto.graph, "main graph"):
        names = Counter(t.name for t in graph.initializer)
        names.update(s.values.name for s in graph.sparse_initializer)
        for name, count in names.items():
            if count > 1:
                yield (
                    f"initializer {name!r} is defined {count} times in the {where} (saving would keep only one).",
                    "Rename or delete the extra initializer so that every name is unique.",
                    "",
                )
        infos = Counter(v.name for v in graph.value_info)
        for name, count in infos.items():
            if count > 1:
                yield f"value_info for {name!r} appears {count} times in the {where}.", "Keep one entry.", ""
        for sparse in graph.sparse_initializer:
            try:
                onnx.checker.check_sparse_tensor(sparse)
            except Exception as exc:  # ValidationError: out-of-range or unsorted indices, wrong shapes
                yield f"sparse initializer {sparse.values.name!r}: {exc}", "Fix its indices or dense shape.", ""
    ids = Counter((f.domain, f.name, f.overload) for f in proto.functions)
    for (domain, name, overload), count in ids.items():
        if count > 1:
            key = f"{domain}::{name}" + (f":{overload}" if overload else "")
            yield f"the model defines local function {key!r} {count} times.", "Delete the duplicates.", ""


def _copy_except(source: Message, target: Message, skip: str) -> None:
    """Copy every set field of ``source`` into ``target`` except ``skip`` (no copy of the skipped data)."""
    for field, value in source.ListFields():
        if field.name == skip:
            continue
        if field.is_repeated:
            getattr(target, field.name).extend(value)
        elif field.type == field.TYPE_MESSAGE:
            getattr(target, field.name).CopyFrom(value)
        else:
            setattr(target, field.name, value)


def weightless(proto: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``proto`` without large initializer data: they become typed graph inputs of the main graph."""
    copy = onnx.ModelProto()
    _copy_except(proto, copy, "graph")
    graph = copy.graph
    _copy_except(proto.graph, graph, "initializer")
    inputs = {value.name for value in graph.input}
    for tensor in proto.graph.initializer:
        if tensor.data_location != onnx.TensorProto.EXTERNAL and _size(tensor) <= SMALL_ELEMENTS:
            graph.initializer.append(tensor)
        elif tensor.name not in inputs:
            graph.input.append(onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims)))
            inputs.add(tensor.name)
    return copy


def _bind(message: str, node_ids: Mapping[str, str]) -> str | None:
    match = _NODE_NAME_RE.search(message)
    return node_ids.get(match.group(1)) if match else None


def check_proto(proto: onnx.ModelProto, node_ids: Mapping[str, str]) -> list[Diagnostic]:
    """Errors of the file as written that the ir model hides; ``node_ids`` maps node names to node ids."""
    found = [
        Diagnostic("error", message, node_ids.get(node) if node else None, fix, "structure")
        for message, fix, node in _structural(proto)
    ]
    if found:
        return found
    try:
        onnx.checker.check_model(weightless(proto), full_check=True)
    except Exception as exc:  # ValidationError, InferenceError, or whatever a corrupt file provokes
        text = str(exc).strip()
        fix = "Fix what onnx.checker reports; the node is shown when the message names one."
        message = f"onnx.checker (full check) rejects the file: {text}"
        found.append(Diagnostic("error", message, _bind(text, node_ids), fix, "checker"))
    return found
