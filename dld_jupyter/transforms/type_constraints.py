"""Whether converting a tensor to another data type keeps the operators that read it valid (Convert Tensors).

Convert Tensors wrote type-broken models and said "0 errors" (issue 31, finding 5): a DequantizeLinear scale made
float16 at opset 17, an Add whose weight became float16 beside a float32 input, a Constant's `value_ints` turned into
FLOATS. The operator schemas (`document.schema`, the registry the palette and the editors read) say what each input
allows: a conversion is refused, with the node, its input and the allowed types named, when
1. a reader's input does not allow the new type at the model's opset (its type constraint);
2. another input of that reader bound to the same type variable keeps a different type (Add's A and B are both T);
3. the tensor's own producer cannot output it (ConstantOfShape's value: T2), or a list attribute would change kind
   (INTS <-> FLOATS) on an operator whose schema fixes the attribute's type.
Readers without a schema (custom domains, local functions) are left to the post-condition (`postcondition`).
Types of values nothing declares come from one strict shape inference on the weightless skeleton.
"""

from __future__ import annotations

from collections.abc import Mapping

import onnx
import onnx.shape_inference
import onnx_ir as ir

from dld_jupyter.document.checks.skeleton import InferredTypes, Skeleton
from dld_jupyter.document.operators.schema import OpSchemaInfo, registry

DT = ir.DataType
LIST_KINDS = {ir.AttributeType.INTS: "INTS", ir.AttributeType.FLOATS: "FLOATS"}

def type_name(dtype: DT) -> str:
    return f"tensor({dtype.name.lower()})"

class TypeGuard:
    """Checks conversions of one model; `changing` maps each value the batch converts to its new type."""

    def __init__(self, model: ir.Model, changing: Mapping[ir.Value, DT]) -> None:
        self.model = model
        self.changing = dict(changing)
        self._inferred: InferredTypes | None = None

    def _schema(self, node: ir.Node) -> OpSchemaInfo | None:
        domain = "" if node.domain == "ai.onnx" else node.domain
        version = self.model.opset_imports.get(domain)
        return None if version is None else registry.get(node.op_type, domain, version)

    def _opset(self, node: ir.Node) -> str:
        domain = "" if node.domain == "ai.onnx" else node.domain
        return f"opset {self.model.opset_imports.get(domain)} of {domain or 'ai.onnx'}"

    def _known(self, value: ir.Value) -> DT | None:
        if value in self.changing:
            return self.changing[value]
        if value.const_value is not None:
            return value.const_value.dtype
        if value.dtype is not None:
            return value.dtype
        if self._inferred is None:
            self._inferred = _inferred(self.model)
        found = self._inferred.get(value.name or "")
        return getattr(DT, found[0], None) if found else None

    def value_problem(self, value: ir.Value, target: DT) -> str | None:
        """Why `value` cannot become `target` for its readers (rules 1 and 2), or None."""
        for use in value.uses():
            node, index = use.node, use.idx
            schema = self._schema(node)
            param = schema.input_param(index) if schema is not None else None
            if schema is None or param is None:
                continue
            label = f"node '{node.name or node.op_type}' ({node.op_type}), input {index} '{param.name}'"
            if type_name(target) not in param.types:
                allowed = ", ".join(param.types)
                return f"{label} allows {allowed} at {self._opset(node)}, not {target.name.lower()}."
            if param.type_str in param.types:  # a fixed type, no variable shared with other inputs
                continue
            for other_index, other in enumerate(node.inputs):
                other_param = schema.input_param(other_index)
                if other is None or other is value or other_param is None or other_param.type_str != param.type_str:
                    continue
                dtype = self._known(other)
                if dtype is not None and dtype != target:
                    return (
                        f"{label} shares type {param.type_str} with input {other_index} '{other.name}', which is "
                        f"{dtype.name.lower()}; convert both, or insert a Cast."
                    )
        return None

    def producer_problem(self, node: ir.Node, target: DT) -> str | None:
        """Why `node` (a Constant-like producer) cannot output `target` (rule 3), or None."""
        schema = self._schema(node)
        param = schema.output_param(0) if schema is not None else None
        if param is None or type_name(target) in param.types:
            return None
        allowed = ", ".join(param.types)
        return (
            f"node '{node.name or node.op_type}' ({node.op_type}) outputs {allowed} at {self._opset(node)}, "
            f"not {target.name.lower()}."
        )

    def list_problem(self, node: ir.Node, attr: ir.Attr, kind: ir.AttributeType) -> str | None:
        """Why the list attribute `attr` of `node` cannot become `kind` (rule 3), or None."""
        schema = self._schema(node)
        info = schema.attribute(attr.name) if schema is not None else None
        if info is None or kind == attr.type or info.type not in LIST_KINDS.values():
            return None
        return (
            f"attribute '{attr.name}' of node '{node.name or node.op_type}' ({node.op_type}) must be {info.type} "
            f"at {self._opset(node)}; a {LIST_KINDS.get(kind, kind.name)} list would break the model."
        )

def _inferred(model: ir.Model) -> InferredTypes:
    skeleton = Skeleton(model)
    try:
        proto = onnx.shape_inference.infer_shapes(skeleton.proto, data_prop=True)
    except Exception:  # an already broken model: only declared types are known
        return InferredTypes(None)
    return InferredTypes(proto)
