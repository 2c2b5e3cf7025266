"""Convert Tensors (seed 000): a selection of initializers and node attributes converted to one data type, as ONE
undo step (undo brings back every tensor's type and values).

Cases handled, in order:
1. the target type is parsed first (an unknown one is a BadOption); the selection is initializer value ids and
   (node id, attribute name) pairs, as `tensor_candidates` lists them;
2. each initializer goes through the tensor editor's conversion (`initializer_commands.convert_initializer`:
   saturating, with its precision-loss, truncation, clipping and overflow warnings);
3. each attribute: a TENSOR or every tensor of a TENSORS attribute is converted the same way (`tensors.convert`);
   an INTS or FLOATS list becomes INTS for an integer target (its values within the target's range) or FLOATS for
   a floating target (float32 holds them), the only list types ONNX has, and is refused for other targets;
4. a tensor that cannot be converted (bool/string source, external data, same type, an unknown id) or whose new
   type a reader's schema does not allow (`type_constraints`: the node, its input and the allowed types named) is an
   error on that tensor only: the others are still converted and the errors are listed; a tensor already of the
   target type is skipped with a note; the converted model passes the post-condition (`postcondition`: full checker,
   onnxruntime load) or the whole conversion is refused and rolled back;
5. progress per tensor and cancel between tensors; a cancel undoes the tensors already converted (the
   transaction rolls back), so the model is unchanged.
"""

from __future__ import annotations

import contextlib
import pathlib
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.initializer_commands import convert_initializer
from dld_jupyter.document.edits.tensors import convert, numpy_dtype, parse_dtype
from dld_jupyter.transforms.batch_errors import BadOption
from dld_jupyter.transforms.postcondition import Verdict
from dld_jupyter.transforms.progress import CancelToken, Progress, step
from dld_jupyter.transforms.tensor_candidates import LIST_TYPES
from dld_jupyter.transforms.transform import Do, EditPlan, Transform
from dld_jupyter.transforms.type_constraints import TypeGuard

DT = ir.DataType
AT = ir.AttributeType


@dataclass(frozen=True)
class TensorOutcome:
    """One selected tensor: converted (with the editor's warnings), skipped, or refused (`error`)."""

    kind: str  # "initializer" or "attribute"
    key: str  # value id, or "node id/attribute"
    label: str  # initializer name, or "node name.attribute"
    source: str
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    skipped: bool = False


@dataclass(frozen=True)
class ConversionResult:
    target: str
    outcomes: list[TensorOutcome]
    output: pathlib.Path | None = None  # the file written, when a front door saved the result
    verdict: Verdict | None = None  # the post-condition's (postcondition.require_valid)

    @property
    def converted(self) -> list[TensorOutcome]:
        return [o for o in self.outcomes if o.error is None and not o.skipped]

    @property
    def errors(self) -> list[TensorOutcome]:
        return [o for o in self.outcomes if o.error is not None]

    @property
    def log(self) -> list[str]:
        lines = [f"{len(self.converted):,} tensors converted to {self.target}, {len(self.errors):,} errors"]
        for o in self.outcomes:
            state = f"error: {o.error}" if o.error else "skipped: already this type" if o.skipped else "converted"
            lines.append(f"{o.kind} {o.label} ({o.source}): {state}")
            lines.extend(f"    warning: {w}" for w in o.warnings)
        return lines + (self.verdict.lines() if self.verdict else [])

    def to_dict(self) -> dict[str, Any]:
        return {
            "transform": ConvertTensors.name,
            "output": str(self.output) if self.output else None,
            "target": self.target,
            "converted": len(self.converted),
            "errors": len(self.errors),
            "tensors": [asdict(o) for o in self.outcomes],
            "verdict": self.verdict.to_dict() if self.verdict else None,
            "log": self.log,
        }


def _tensor(array: np.ndarray, target: DT, name: str | None) -> ir.TensorProtocol:
    return ir.tensor(np.asarray(array).astype(numpy_dtype(target), copy=False), dtype=target, name=name)


def _convert_attribute(attr: ir.Attr, target: DT, warnings: list[str]) -> ir.Attr:
    if attr.type == AT.TENSOR:
        tensor = attr.as_tensor()
        array, found = convert(tensor.numpy(), tensor.dtype, target)
        warnings.extend(found)
        return ir.AttrTensor(attr.name, _tensor(array, target, tensor.name))
    if attr.type == AT.TENSORS:
        out = []
        for index, tensor in enumerate(attr.as_tensors()):
            array, found = convert(tensor.numpy(), tensor.dtype, target)
            warnings.extend(f"tensor {index}: {w}" for w in found)
            out.append(_tensor(array, target, tensor.name))
        return ir.AttrTensors(attr.name, out)
    source = LIST_TYPES[attr.type]
    if not (target.is_integer() or target.is_floating_point()):
        raise DocumentError(
            "Convert a list", f"a list attribute cannot hold {target.name.lower()}.", "Pick a number type."
        )
    array, found = convert(np.asarray(attr.value, dtype=numpy_dtype(source)), source, target)
    warnings.extend(found)
    if target.is_integer():
        return ir.AttrInt64s(attr.name, [int(v) for v in array.astype(np.int64)])
    return ir.AttrFloat32s(attr.name, [float(v) for v in array.astype(np.float32)])


def _attribute_source(attr: ir.Attr) -> DT:
    if attr.type == AT.TENSOR:
        return attr.as_tensor().dtype
    if attr.type == AT.TENSORS:
        return next(iter(attr.as_tensors())).dtype
    return LIST_TYPES[attr.type]


class ConvertTensors(Transform):
    name: ClassVar[str] = "convert_tensors"
    label: ClassVar[str] = "Convert tensors"

    def plan(self, doc: Document, **args: Any) -> EditPlan[ConversionResult]:
        """`to`: the target type; `initializers`: value ids; `attributes`: (node id, attribute name) pairs;
        `progress`, `cancel`."""
        try:
            target = parse_dtype(args["to"])
        except (KeyError, DocumentError) as error:
            raise BadOption(
                self.label, f"no valid target type ({error}).", "Pass to='float16' (or int64, ...)."
            ) from None
        initializers = list(args.get("initializers") or [])
        attributes = [(str(n), str(a)) for n, a in (args.get("attributes") or [])]
        progress: Progress | None = args.get("progress")
        cancel: CancelToken | None = args.get("cancel")
        total = max(1, len(initializers) + len(attributes))

        def edit(ctx: Context, do: Do) -> ConversionResult:
            outcomes: list[TensorOutcome] = []
            guard = TypeGuard(ctx.model, _changing(ctx, initializers, attributes, target))
            for value_id in initializers:
                step(progress, cancel, self.label, len(outcomes) / total, f"converting initializer {value_id}")
                outcomes.append(_initializer(ctx, do, value_id, target, guard))
            for node_id, attribute in attributes:
                step(progress, cancel, self.label, len(outcomes) / total, f"converting {node_id}.{attribute}")
                outcomes.append(_attribute(ctx, do, node_id, attribute, target, guard))
            step(progress, cancel, self.label, 1.0, "done")
            return ConversionResult(target.name.lower(), outcomes)

        def verified(result: ConversionResult, verdict: Verdict) -> ConversionResult:
            return replace(result, verdict=verdict)

        return EditPlan(f"{self.label} to {target.name.lower()}", edit, verified)


def _produced(node: ir.Node, name: str) -> ir.Value | None:
    """The value whose type a tensor attribute sets (Constant's and ConstantOfShape's `value`)."""
    if node.op_type in ("Constant", "ConstantOfShape") and name == "value" and node.domain in ("", "ai.onnx"):
        return node.outputs[0]
    return None


def _changing(
    ctx: Context, initializers: list[str], attributes: list[tuple[str, str]], target: DT
) -> dict[ir.Value, DT]:
    """Every value the batch would give the target type (readers see all of them converted together)."""
    changing: dict[ir.Value, DT] = {}
    for value_id in initializers:
        with contextlib.suppress(DocumentError):
            changing[ctx.ids.value(value_id)] = target
    for node_id, name in attributes:
        with contextlib.suppress(DocumentError):
            produced = _produced(ctx.ids.node(node_id), name)
            if produced is not None:
                changing[produced] = target
    return changing


def _initializer(ctx: Context, do: Do, value_id: str, target: DT, guard: TypeGuard) -> TensorOutcome:
    try:
        value = ctx.ids.value(value_id)
    except DocumentError as error:
        return TensorOutcome("initializer", value_id, value_id, "?", error=error.why)
    label = value.name or value_id
    source = value.const_value.dtype if value.const_value is not None else DT.UNDEFINED
    if source == target:
        return TensorOutcome("initializer", value_id, label, source.name.lower(), skipped=True)
    problem = guard.value_problem(value, target)
    if problem:
        guard.changing.pop(value, None)
        return TensorOutcome("initializer", value_id, label, source.name.lower(), error=_refused(problem))
    try:
        warnings = convert_initializer(ctx, do, value_id, target)
    except DocumentError as error:
        return TensorOutcome(
            "initializer", value_id, label, source.name.lower(), error=f"{error.why} {error.fix}".strip()
        )
    return TensorOutcome("initializer", value_id, label, source.name.lower(), warnings)


def _refused(problem: str) -> str:
    return f"not converted: {problem}"


def _attribute_problem(guard: TypeGuard, node: ir.Node, attr: ir.Attr, target: DT) -> str | None:
    if attr.type in LIST_TYPES:
        if not (target.is_integer() or target.is_floating_point()):
            return None  # no list can hold it: _convert_attribute says so
        return guard.list_problem(node, attr, AT.INTS if target.is_integer() else AT.FLOATS)
    produced = _produced(node, attr.name)
    if produced is None:
        return None
    problem = guard.producer_problem(node, target) or guard.value_problem(produced, target)
    if problem:
        guard.changing.pop(produced, None)
    return problem


def _attribute(ctx: Context, do: Do, node_id: str, name: str, target: DT, guard: TypeGuard) -> TensorOutcome:
    key = f"{node_id}/{name}"
    try:
        node = ctx.ids.node(node_id)
    except DocumentError as error:
        return TensorOutcome("attribute", key, key, "?", error=error.why)
    label = f"{node.name or node_id}.{name}"
    attr = node.attributes.get(name)
    if not isinstance(attr, ir.Attr) or attr.type not in (AT.TENSOR, AT.TENSORS, *LIST_TYPES):
        return TensorOutcome("attribute", key, label, "?", error="it is no tensor or list attribute of the node.")
    source = _attribute_source(attr)
    if source == target:
        return TensorOutcome("attribute", key, label, source.name.lower(), skipped=True)
    problem = _attribute_problem(guard, node, attr, target)
    if problem:
        return TensorOutcome("attribute", key, label, source.name.lower(), error=_refused(problem))
    warnings: list[str] = []
    try:
        converted = _convert_attribute(attr, target, warnings)
    except DocumentError as error:
        return TensorOutcome("attribute", key, label, source.name.lower(), error=f"{error.why} {error.fix}".strip())
    do(c.SetAttribute(node, name, converted))
    return TensorOutcome("attribute", key, label, source.name.lower(), warnings)


def convert_tensors(
    doc: Document,
    to: str | DT,
    initializers: list[str] | None = None,
    attributes: list[tuple[str, str]] | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> ConversionResult:
    """Convert the selected tensors of `doc` to `to`, one undo step (nothing recorded when nothing converts)."""
    plan = ConvertTensors().plan(
        doc, to=to, initializers=initializers, attributes=attributes, progress=progress, cancel=cancel
    )
    return plan.execute(doc)
