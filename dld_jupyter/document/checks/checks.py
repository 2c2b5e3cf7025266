"""Model checks for the type check list: onnx.checker, strict shape inference, structure, data sizes, Polygraphy lint.

Everything found becomes a `Diagnostic` bound to a node id; a broken model never raises. The ONNX checks
run on a weightless skeleton (large initializers become typed graph inputs), so their cost follows the node
count, not the weights: serializing 440 MB of BERT weights is what made a plain `check_model` take seconds.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import Any

import onnx
import onnx.checker
import onnx.shape_inference
import onnx_ir as ir

from dld_jupyter.document.checks.collector import Collector
from dld_jupyter.document.checks.diagnostics import Diagnostic
from dld_jupyter.document.checks.lint import LintRun, start_polygraphy_lint
from dld_jupyter.document.checks.skeleton import TOKEN, TOKEN_RE, InferredTypes, Skeleton, TypeInfo
from dld_jupyter.document.checks.structure_checks import data_sizes, structural_checks
from dld_jupyter.document.model.ids import IdKind, value_node_id

__all__ = [
    "AUTO_CHECK_MAX_NODES",
    "CheckResult",
    "Diagnostic",
    "LintRun",
    "check_model",
    "should_check_automatically",
    "start_polygraphy_lint",
]

NodeIds = Callable[[ir.Node], "str | None"] | Mapping[ir.Node, str] | None

# Above this many nodes the editor checks only on request (seed 000: "automatic type checking is disabled").
AUTO_CHECK_MAX_NODES = int(os.environ.get("DLD_AUTO_CHECK_MAX_NODES", "20000"))

_INFERENCE_ROUNDS = 8


@dataclasses.dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    inferred: Mapping[str, TypeInfo]  # value name -> (dtype such as "FLOAT", dims: ints, symbols, "?"; or None)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


def should_check_automatically(model: ir.Model, max_nodes: int | None = None) -> bool:
    """Whether an edit should trigger a check, or the model is too large and checks only on request."""
    return len(model.graph) <= (AUTO_CHECK_MAX_NODES if max_nodes is None else max_nodes)


def _id_lookup(ids: NodeIds) -> Callable[[ir.Node], str | None]:
    if ids is None:
        return lambda node: node.name or None
    if isinstance(ids, Mapping):
        return ids.get
    return ids


def _unshaped_io(
    model: ir.Model,
    proto: onnx.ModelProto,
    inferred: Mapping[str, TypeInfo],
    collector: Collector,
    value_ids: Callable[[ir.Value], str | None] | None,
) -> None:
    """The checker wants a shape on every graph input and output: use the inferred one, or report it."""
    graph = proto.graph
    sides: tuple[tuple[IdKind, Any, Any], ...] = (
        ("input", graph.input, model.graph.inputs), ("output", graph.output, model.graph.outputs))
    for kind, values, io in sides:
        for info in values:
            tensor_type = info.type.tensor_type
            if not info.type.HasField("tensor_type") or tensor_type.HasField("shape"):
                continue
            tensor_type.shape.SetInParent()
            typed = inferred.get(info.name)
            shape = typed[1] if typed is not None else None
            if shape is None:
                value = next((v for v in io if v.name == info.name), None)
                value_id = value_ids(value) if value_ids is not None and value is not None else None
                node_id = value_node_id(kind, value_id) if value_id else None
                message = f"Graph {kind} '{info.name}' has no shape, not even an inferred one."
                hint = "Set its shape (use symbols such as 'batch' for dimensions that vary)."
                collector.diagnostics.append(Diagnostic("warning", message, node_id, hint, "checker"))
                continue
            for dim in shape:
                if isinstance(dim, int):
                    tensor_type.shape.dim.add().dim_value = dim
                else:
                    tensor_type.shape.dim.add().dim_param = dim


def _run_checker(proto: onnx.ModelProto, collector: Collector) -> None:
    try:
        onnx.checker.check_model(proto, full_check=False)
        return
    except Exception as exc:  # ValidationError, or anything a corrupt model provokes
        first = str(exc)
    # check_model stops at the first error; check nodes one by one to list them all. Nodes with subgraphs
    # need the outer scope, which check_node cannot be given: the whole-model error covers them.
    context = onnx.checker.C.CheckerContext()
    context.ir_version = proto.ir_version
    context.opset_imports = {o.domain: o.version for o in proto.opset_import}
    for node in proto.graph.node:
        if any(a.HasField("g") or a.graphs for a in node.attribute):
            continue
        try:
            onnx.checker.check_node(node, context, onnx.checker.C.LexicalScopeContext())
        except Exception as exc:
            collector.raw(str(exc), "checker", token=node.name)
    collector.raw(first, "checker")


def _run_inference(proto: onnx.ModelProto, collector: Collector) -> onnx.ModelProto | None:
    """Strict inference; a node that fails is reported, dropped from a copy, and inference goes on without it.

    Some errors (arity, unsupported types) stop inference at once, which would hide every later problem and
    leave no inferred shape to label the edges.
    """
    work = proto
    for _ in range(_INFERENCE_ROUNDS):
        try:
            return onnx.shape_inference.infer_shapes(work, check_type=True, strict_mode=True, data_prop=True)
        except Exception as exc:
            text = str(exc).replace("[ShapeInferenceError] Inference error(s): ", "")
            for line in text.splitlines():
                collector.raw(line.strip(), "shape_inference")
            failed = {f"{TOKEN}{m.group(1)}" for m in TOKEN_RE.finditer(text)}
        if not failed:
            break
        if work is proto:
            work = onnx.ModelProto()
            work.CopyFrom(proto)
        kept = [node for node in work.graph.node if node.name not in failed]
        del work.graph.node[:]
        work.graph.node.extend(kept)
    try:  # the partial result still labels the edges that could be inferred
        return onnx.shape_inference.infer_shapes(work, data_prop=True)
    except Exception:
        return None


def check_model(
    model: ir.Model,
    ids: NodeIds = None,
    *,
    value_ids: Callable[[ir.Value], str | None] | None = None,
    structure: bool = True,
) -> CheckResult:
    """Structural checks, strict shape inference and onnx.checker; diagnostics bound to `ids(node)`.

    With `value_ids`, problems of a graph input or output are bound to its I/O node (`"i<value id>"` /
    `"o<value id>"`, as the read-model names them).
    """
    try:
        return _check(model, _id_lookup(ids), value_ids, structure)
    except Exception as exc:  # whatever a half-edited model provokes, the type check list shows it
        message = f"The check could not run: {type(exc).__name__}: {exc}"
        return CheckResult([Diagnostic("error", message, None, "", "checker")], {})


def _check(
    model: ir.Model,
    ids: Callable[[ir.Node], str | None],
    value_ids: Callable[[ir.Value], str | None] | None,
    structure: bool,
) -> CheckResult:
    skeleton = Skeleton(model)
    collector = Collector(skeleton, ids)
    if structure:
        structural_checks(model, collector)
        data_sizes(model, collector)
    inferred_proto = _run_inference(skeleton.proto, collector)
    inferred = InferredTypes(inferred_proto)
    # Checked after inference so graph outputs declared without a shape get the inferred one.
    _unshaped_io(model, skeleton.proto, inferred, collector, value_ids)
    _run_checker(skeleton.proto, collector)
    order = {"error": 0, "warning": 1, "info": 2}
    diagnostics = sorted(collector.diagnostics, key=lambda d: order[d.severity])
    return CheckResult(diagnostics, inferred)


