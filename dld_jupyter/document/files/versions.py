"""Which ONNX versions a document is written with: the newest opset this onnx knows, the IR version of an opset,
the IR version onnxruntime loads, and the empty model of ``Document.new`` (io.py reads and writes the files)."""

from __future__ import annotations

from collections.abc import Mapping

import onnx
import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError

ORT_MAX_IR_VERSION = 13  # onnxruntime 1.31 refuses IR 14 (onnx 1.23's default)
ORT_MAX_OPSET = 26  # newest default-domain opset onnxruntime 1.31 loads
ML_MAX_OPSET = 5


def newest_opset() -> int:
    return int(onnx.defs.onnx_opset_version())


def ir_version_for_opset(opset: int) -> int:
    """The IR version of the first onnx release that knows ``opset`` (never below 3)."""
    for _release, ir_version, ai_onnx, _ml, *_ in onnx.helper.VERSION_TABLE:
        if ai_onnx >= opset:
            return max(3, int(ir_version))
    return int(onnx.IR_VERSION)


def target_ir_version(ir_version: int, opsets: Mapping[str, int]) -> int:
    """``ir_version`` lowered to what onnxruntime 1.31 loads when the default-domain opset allows it."""
    if ir_version <= ORT_MAX_IR_VERSION:
        return ir_version
    needed = ir_version_for_opset(opsets.get("", opsets.get("ai.onnx", 1)))
    return ir_version if needed > ORT_MAX_IR_VERSION else ORT_MAX_IR_VERSION


def empty_model(opset: int, contrib: bool, name: str) -> ir.Model:
    """An empty model importing ai.onnx ``opset`` (and com.microsoft 1 with ``contrib``)."""
    newest = newest_opset()
    if not isinstance(opset, int) or not 1 <= opset <= newest:
        raise DocumentError("Create a model", f"opset {opset!r} is not in 1..{newest}.", f"Pick 1..{newest}.")
    opsets = {"": opset}
    if contrib:
        opsets["com.microsoft"] = 1
    graph = ir.Graph([], [], nodes=[], opset_imports=opsets, name=name)
    return ir.Model(graph, ir_version=ir_version_for_opset(opset), producer_name="dld_jupyter", producer_version="0")
