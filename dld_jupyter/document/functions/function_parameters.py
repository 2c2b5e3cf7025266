"""Parameters of a function being edited, and reference attributes (seed 000 "Local Functions": Local Function
Settings, Set Reference Parameter).

A function document keeps its parameters in a ``ParameterTable`` (``SetParameters`` is its undoable command); they
become the definition's attributes on confirm. A reference binds an operator's attribute to a parameter
(``onnx_ir.RefAttr``, ``ref_attr_name``); the parameter editor shows it as ``"@name"``. Rules:
- a parameter has a unique non-empty printable name and one of ``PARAMETER_TYPES``; an UNDEFINED one has no
  default (each instance passes a typed value), every other type needs a default (the seed's rule);
- a referenced parameter cannot be removed (the message names the references);
- a reference needs a parameter whose type is the attribute's type in the operator's schema, or UNDEFINED (the
  instance decides); operators without a schema (custom, local functions) take the parameter's type; a parameter
  is UNDEFINED and the schema unknown is refused, no type could be written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import onnx_ir as ir

from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits.attributes import to_attr
from dld_jupyter.document.edits.commands import Command, Context
from dld_jupyter.document.edits.structure_edits import Do, op_node
from dld_jupyter.document.functions.function_model import FunctionParameter, check_parameter_type, parameter_of
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.operators.signature import node_signature
from dld_jupyter.document.subgraphs.nested_graphs import subgraphs


class ParameterTable:
    """The parameters of a function document, in order (name -> ir.Attr: its type and default)."""

    def __init__(self, attrs: dict[str, ir.Attr]) -> None:
        self.attrs = dict(attrs)


@dataclass(frozen=True)
class SetParameters:
    table: ParameterTable
    attrs: tuple[ir.Attr, ...]

    def apply(self, ctx: Context) -> Command:
        inverse = SetParameters(self.table, tuple(self.table.attrs.values()))
        self.table.attrs = {attr.name: attr for attr in self.attrs}
        ctx.changes.model_info = True
        return inverse


@dataclass(frozen=True)
class ReferenceChoice:
    """A parameter offered for a reference: ``compatible`` False is grayed out in the dialog."""

    parameter: str
    type: str
    compatible: bool


def references(graph: ir.Graph) -> Iterator[tuple[ir.Node, ir.Attr]]:
    """Every reference attribute of the body, subgraphs included."""
    nodes = list(graph)
    for sub in subgraphs(nodes):
        nodes.extend(sub)
    for node in nodes:
        for attr in node.attributes.values():
            if attr.is_ref():
                yield node, attr


def add_parameter(ctx: Context, do: Do, table: ParameterTable, name: Any, kind: Any, default: Any) -> None:
    what = f"Add parameter {name!r}"
    if not isinstance(name, str) or not name or not name.isprintable() or " " in name:
        raise DocumentError(
            what, f"{name!r} is not a usable parameter name.", "Use a name without spaces, e.g. 'axis'."
        )
    if name in table.attrs:
        raise DocumentError(what, f"the function already has a parameter {name!r}.", "Choose another name.")
    attr_type = check_parameter_type(kind, what)
    if attr_type == ir.AttributeType.UNDEFINED:
        if default is not None:
            raise DocumentError(
                what, "an undefined parameter has no default: each instance passes a typed value.", "Pass default=None."
            )
        attr = ir.Attr(name, ir.AttributeType.UNDEFINED, None)
    else:
        if default is None:
            raise DocumentError(
                what,
                f"a {attr_type.name} parameter needs a default value.",
                "Pass default=..., or use type 'undefined'.",
            )
        attr = to_attr(name, default, attr_type.name)
    do(SetParameters(table, (*table.attrs.values(), attr)))


def remove_parameter(ctx: Context, do: Do, table: ParameterTable, name: str) -> None:
    what = f"Remove parameter {name!r}"
    if name not in table.attrs:
        raise DocumentError(
            what, "the function has no such parameter.", f"Parameters: {', '.join(table.attrs) or 'none'}."
        )
    users = [
        f"{node.name or node.op_type}.{attr.name}" for node, attr in references(ctx.graph) if attr.ref_attr_name == name
    ]
    if users:
        raise DocumentError(
            what,
            f"it is referenced by {', '.join(users[:5])}.",
            "Clear those references first (clear_reference_attribute), then remove it.",
        )
    do(SetParameters(table, tuple(a for a in table.attrs.values() if a.name != name)))


def attribute_type(ctx: Context, node: ir.Node, attr_name: str, what: str) -> str | None:
    """The schema's type of ``attr_name`` on ``node``; None when the operator has no schema."""
    sig = node_signature(ctx.model, node)
    if sig is None:
        return None
    spec = sig.attributes.get(attr_name)
    if spec is None:
        if sig.function is not None:
            return None
        known = ", ".join(sorted(sig.attributes)) or "none"
        raise DocumentError(what, f"{node.op_type} has no attribute {attr_name!r}.", f"Known attributes: {known}.")
    return None if spec.type == "UNDEFINED" else spec.type


def compatible(param: ir.Attr, wanted: str | None) -> bool:
    return wanted is None or param.type == ir.AttributeType.UNDEFINED or param.type.name == wanted


def set_reference(ctx: Context, do: Do, table: ParameterTable, node_id: str, attr_name: str, parameter: str) -> None:
    what = f"Set reference {attr_name!r} -> {parameter!r}"
    node = op_node(ctx, node_id, what)
    param = table.attrs.get(parameter)
    if param is None:
        raise DocumentError(
            what, f"the function has no parameter {parameter!r}.", "Add it first (add_parameter) or pick another."
        )
    wanted = attribute_type(ctx, node, attr_name, what)
    if not compatible(param, wanted):
        raise DocumentError(
            what,
            f"parameter {parameter!r} is {param.type.name}, {node.op_type}.{attr_name} is {wanted}.",
            f"Pick a {wanted} or undefined parameter.",
        )
    kind = wanted if wanted is not None else param.type.name
    if kind == "UNDEFINED":
        raise DocumentError(
            what,
            f"{node.op_type} has no schema and {parameter!r} is undefined: the reference would have no type.",
            "Use a parameter with a type.",
        )
    do(c.SetAttribute(node, attr_name, ir.RefAttr(attr_name, parameter, ir.AttributeType[kind])))


def clear_reference(ctx: Context, do: Do, node_id: str, attr_name: str) -> None:
    """Remove the reference: the attribute goes back to its schema default (unset)."""
    what = f"Clear reference {attr_name!r}"
    node = op_node(ctx, node_id, what)
    attr = node.attributes.get(attr_name)
    if attr is None or not attr.is_ref():
        raise DocumentError(what, f"{attr_name!r} of {node.name or node.op_type} is not a reference.", "Nothing to do.")
    do(c.SetAttribute(node, attr_name, None))


def reference_choices(ctx: Context, table: ParameterTable, node_id: str, attr_name: str) -> list[ReferenceChoice]:
    """Every parameter, with whether it fits ``attr_name`` of the node (the dialog grays out the others)."""
    what = f"List parameters for {attr_name!r}"
    wanted = attribute_type(ctx, op_node(ctx, node_id, what), attr_name, what)
    return [ReferenceChoice(p.name, p.type.name, compatible(p, wanted)) for p in table.attrs.values()]


def referable_attributes(ctx: Context, node_id: str) -> dict[str, str]:
    """The node's schema attributes that do not use a reference yet, with their types (the dialog's first list)."""
    node = op_node(ctx, node_id, "List attributes")
    sig = node_signature(ctx.model, node)
    if sig is None:
        return {}
    taken = {name for name, attr in node.attributes.items() if attr.is_ref()}
    return {name: spec.type for name, spec in sig.attributes.items() if name not in taken}


def parameters(table: ParameterTable) -> list[FunctionParameter]:
    return [parameter_of(attr) for attr in table.attrs.values()]
