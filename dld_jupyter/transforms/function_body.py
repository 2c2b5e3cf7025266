"""What the function transforms share: a call's attribute values, copies of a body with references resolved,
fresh unique names, and the opsets a body needs in the model that receives it."""

from __future__ import annotations

from collections.abc import Callable

import onnx_ir as ir
from onnx_ir import _cloner

from dld_jupyter.document import DocumentError
from dld_jupyter.document.commands import Context
from dld_jupyter.document.function_commands import SetOpsetImport
from dld_jupyter.document.function_model import FunctionKey
from dld_jupyter.document.names import NameIndex, to_identifier


def call_attributes(function: ir.Function, instance: ir.Node | None) -> dict[str, ir.Attr]:
    """The value of each parameter for a call: the instance's attribute, else the parameter's default. A parameter
    with neither is left out, so the body's references to it drop their attribute (the ONNX rule)."""
    values: dict[str, ir.Attr] = {}
    for name, param in function.attributes.items():
        given = instance.attributes.get(name) if instance is not None else None
        if given is not None and not given.is_ref():
            values[name] = given
        elif param.type != ir.AttributeType.UNDEFINED and param.value is not None:
            values[name] = param
    return values


def resolved_body(
    function: ir.Function,
    instance: ir.Node | None,
    inputs: dict[ir.Value, ir.Value | None],
    rename: Callable[[ir.Node], None] = lambda _: None,
) -> list[ir.Node]:
    """Copies of the body's nodes, in body order, reading ``inputs`` (function input -> value, None: omitted) with
    every reference attribute resolved for ``instance``; ``rename`` names each copy as it is made."""
    cloner = _cloner.Cloner(
        attr_map=call_attributes(function, instance),
        value_map=dict(inputs),
        metadata_props={},
        post_process=rename,
        resolve_ref_attrs=True,
    )
    try:
        return [cloner.clone_node(node) for node in function]
    except RuntimeError as error:
        raise DocumentError(
            f"Copy the body of {function.domain}::{function.name}",
            f"the body reads a value that is neither a function input nor made in the body ({error.__cause__}).",
            "Open the function and connect that input.",
        ) from None


class FreshNames:
    """Unique node and value names in a graph for nodes about to be added (the graph's names and earlier picks)."""

    def __init__(self, names: NameIndex) -> None:
        self._names = names
        self._nodes: set[str] = set()
        self._values: set[str] = set()

    def node(self, stem: str) -> str:
        base = to_identifier(stem)
        name, i = base, 0
        while self._names.node_count(name) or name in self._nodes:
            name, i = f"{base}_{i}", i + 1
        self._nodes.add(name)
        return name

    def value(self, stem: str) -> str:
        name = self._names.unique_value_name(stem, self._values)
        self._values.add(name)
        return name


def body_imports(ctx: Context, function: ir.Function, what: str) -> list[SetOpsetImport]:
    """Imports the model needs to hold the body's nodes: refused when a domain's version differs."""
    needed: list[SetOpsetImport] = []
    domains = {node.domain for node in function}
    for domain in sorted(domains):
        have = ctx.model.opset_imports.get(domain)
        want = function.opset_imports.get(domain, 1)
        if have is None:
            needed.append(SetOpsetImport(domain, want))
        elif have != want:
            raise DocumentError(
                what,
                f"the body uses {domain or 'ai.onnx'} opset {want}, the model imports {have}.",
                "Convert the model or the function to the same opset first.",
            )
    return needed


def nested_functions(model: ir.Model, function: ir.Function) -> list[FunctionKey]:
    """The model's functions that ``function``'s body calls, directly or through each other."""
    found: list[FunctionKey] = []
    stack = [function]
    while stack:
        for node in stack.pop():
            key = (node.domain, node.op_type, node.overload)
            if key in model.functions and key not in found:
                found.append(key)
                stack.append(model.functions[key])
    return found
