"""The contract between a control-flow operator and its body, checked before a subgraph document writes back.

- every body has at least one output;
- Loop ``body``: inputs (iteration_num int64, condition bool, N loop-carried), outputs (condition bool, N
  loop-carried, K scan outputs), with N = node inputs - 2 and N + K = node outputs; a loop-carried value has the
  same element type in, out, and as the node's initial value (where the types are known);
- Scan ``body``: one input per state and scan input of the node (opset 8: the node's first input,
  sequence_lens, is not passed), one output per node output;
- If ``then_branch`` / ``else_branch``: no inputs, one output per node output, element types matching the other
  branch's outputs (where known);
- other operators' subgraphs (SequenceMap, custom ops): only the first rule.
"""

from __future__ import annotations

from collections.abc import Mapping

import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError

WHAT = "Confirm Subgraph Edits"


def _label(node: ir.Node) -> str:
    return f"{node.op_type} {node.name!r}" if node.name else node.op_type


def _count(body: ir.Graph, kind: str, expected: int, because: str) -> None:
    have = len(body.inputs if kind == "inputs" else body.outputs)
    if have != expected:
        raise DocumentError(
            WHAT,
            f"the body has {have} {kind}; {because} needs {expected}.",
            f"Add or remove graph {kind} so there are {expected}.",
        )


class _Contract:
    """The checks of one body; element types are the declared ones, else the inferred ones (by value name)."""

    def __init__(self, node: ir.Node, body: ir.Graph, inferred: Mapping[str, ir.DataType]) -> None:
        self.node, self.body, self.inferred = node, body, inferred

    def dtype(self, value: ir.Value | None) -> ir.DataType | None:
        if value is None:
            return None
        return value.dtype if value.dtype is not None else self.inferred.get(value.name or "")

    def same_type(self, what: str, a: ir.Value | None, b: ir.Value | None, against: str) -> None:
        da, db = self.dtype(a), self.dtype(b)
        if da is not None and db is not None and da != db:
            raise DocumentError(
                WHAT,
                f"{what} is {da.name.lower()} but {against} is {db.name.lower()}.",
                "Insert a Cast or change the graph input/output type so they match.",
            )

    def expect(self, value: ir.Value, dtype: ir.DataType, role: str) -> None:
        have = self.dtype(value)
        if have is not None and have != dtype:
            raise DocumentError(
                WHAT,
                f"{role} {value.name!r} is {have.name.lower()}; the operator passes {dtype.name.lower()}.",
                f"Make it {dtype.name.lower()}.",
            )

    def loop(self) -> None:
        node, body = self.node, self.body
        carried = max(len(node.inputs) - 2, 0)
        label = _label(node)
        _count(body, "inputs", 2 + carried, f"{label} (iteration_num, condition and {carried} loop-carried values)")
        _count(body, "outputs", 1 + len(node.outputs), f"{label} (condition and its {len(node.outputs)} outputs)")
        self.expect(body.inputs[0], ir.DataType.INT64, "Body input 0 (iteration_num)")
        self.expect(body.inputs[1], ir.DataType.BOOL, "Body input 1 (condition)")
        self.expect(body.outputs[0], ir.DataType.BOOL, "Body output 0 (condition)")
        for k in range(carried):
            name = f"Body input of loop-carried value {k}"
            self.same_type(name, body.inputs[2 + k], body.outputs[1 + k], "its body output")
            self.same_type(name, body.inputs[2 + k], node.inputs[2 + k], "the node's initial value")

    def scan(self, opset: int) -> None:
        node, body = self.node, self.body
        passed = len(node.inputs) - (1 if opset < 9 else 0)
        _count(body, "inputs", passed, f"{_label(node)} (its states and scan inputs)")
        _count(body, "outputs", len(node.outputs), f"{_label(node)} (one per node output)")

    def branch(self, attribute: str) -> None:
        node, body = self.node, self.body
        _count(body, "inputs", 0, "an If branch (it reads outer values instead)")
        _count(body, "outputs", len(node.outputs), f"{_label(node)} (one per node output)")
        other_name = "else_branch" if attribute == "then_branch" else "then_branch"
        other = node.attributes.get(other_name)
        if other is None or other.is_ref() or other.type != ir.AttributeType.GRAPH:
            return
        for k, (mine, theirs) in enumerate(zip(body.outputs, other.value.outputs, strict=False)):
            self.same_type(f"Output {k} {mine.name!r}", mine, theirs, f"output {k} of the {other_name}")


def check_contract(
    node: ir.Node, attribute: str, body: ir.Graph, opset: int, inferred: Mapping[str, ir.DataType] | None = None
) -> None:
    """Raise DocumentError (what, why, fix) when ``body``, meant for ``node.attribute``, breaks the contract.
    Element types are the declared ones, else ``inferred`` (by value name, from shape inference of the body)."""
    if not body.outputs:
        raise DocumentError(WHAT, "the subgraph has no outputs.", "Mark the values it computes as graph outputs.")
    if node.domain not in ("", "ai.onnx"):
        return
    contract = _Contract(node, body, inferred or {})
    if node.op_type == "Loop" and attribute == "body":
        contract.loop()
    elif node.op_type == "Scan" and attribute == "body":
        contract.scan(opset)
    elif node.op_type == "If" and attribute in ("then_branch", "else_branch"):
        contract.branch(attribute)
