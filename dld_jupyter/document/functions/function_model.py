"""Local functions of a model as the document shows them: the function list, parameters, names and lookups.

A local function is keyed by (domain, name, overload); its instances are the nodes of the main graph whose
(domain, op_type, overload) is that key. Parameters are the function's attributes: a name, an attribute type
(``UNDEFINED`` when every instance must pass a typed value) and, for the other types, a default value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.model.views import attribute_values

FunctionKey = tuple[str, str, str]  # (domain, name, overload), as onnx_ir keys model.functions

# The attribute types a parameter can have ("UNDEFINED": no default, every instance passes a typed value).
PARAMETER_TYPES = ("UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "FLOATS", "INTS", "STRINGS", "TENSORS")
# Domains whose operators the runtimes define: a function there would shadow or clash with them.
RESERVED_DOMAINS = frozenset({"", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training", "com.microsoft"})

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_DOMAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


@dataclass(frozen=True)
class FunctionParameter:
    """A function parameter: ``type`` is an attribute type name ("INT", "FLOATS", ... or "UNDEFINED");
    ``default`` a Python value (numpy array for tensors), None when it has none."""

    name: str
    type: str
    default: Any = None


@dataclass(frozen=True)
class FunctionInfo:
    """One local function of the model, as the Model Local Functions window lists it."""

    name: str
    domain: str
    overload: str
    inputs: list[str]
    outputs: list[str]
    parameters: list[FunctionParameter]
    node_count: int
    instances: list[str]  # node ids of its instances in the main graph

    @property
    def qualified_name(self) -> str:
        return f"{self.domain}::{self.name}" + (f":{self.overload}" if self.overload else "")


def parameter_of(attr: ir.Attr) -> FunctionParameter:
    if attr.type == ir.AttributeType.UNDEFINED or attr.value is None:
        return FunctionParameter(attr.name, attr.type.name, None)
    values, _ = attribute_values(_holder(attr))
    return FunctionParameter(attr.name, attr.type.name, values.get(attr.name))


def _holder(attr: ir.Attr) -> ir.Node:
    return ir.Node("", "Holder", (), attributes=[attr])


def parameters_of(function: ir.Function) -> list[FunctionParameter]:
    return [parameter_of(attr) for attr in function.attributes.values()]


def instances_of(graph: ir.Graph, key: FunctionKey) -> list[ir.Node]:
    """The nodes of ``graph`` (not its subgraphs) calling the function ``key``."""
    return [node for node in graph if (node.domain, node.op_type, node.overload) == key]


def function_infos(model: ir.Model, node_id: Any) -> list[FunctionInfo]:
    """Every function of ``model`` in table order, its instances found in one pass over the main graph."""
    calls: dict[FunctionKey, list[ir.Node]] = {key: [] for key in model.functions}
    for node in model.graph:
        found = calls.get((node.domain, node.op_type, node.overload))
        if found is not None:
            found.append(node)
    return [function_info(model, key, node_id, calls[key]) for key in model.functions]


def function_info(model: ir.Model, key: FunctionKey, node_id: Any, calls: list[ir.Node] | None = None) -> FunctionInfo:
    function = model.functions[key]
    return FunctionInfo(
        name=function.name,
        domain=function.domain,
        overload=function.overload,
        inputs=[v.name or f"input_{i}" for i, v in enumerate(function.inputs)],
        outputs=[v.name or f"output_{i}" for i, v in enumerate(function.outputs)],
        parameters=parameters_of(function),
        node_count=len(function),
        instances=[node_id(node) for node in (instances_of(model.graph, key) if calls is None else calls)],
    )


def find_function(model: ir.Model, name: str, domain: str, overload: str, what: str) -> FunctionKey:
    """The key of an existing function; DocumentError listing the functions otherwise."""
    key = (domain, name, overload or "")
    if key in model.functions:
        return key
    known = ", ".join(f"{d}::{n}" + (f":{o}" if o else "") for d, n, o in model.functions) or "none"
    raise DocumentError(
        what, f"the model has no local function {domain}::{name}.", f"Use one of the model's functions: {known}."
    )


def check_function_name(model: ir.Model, name: Any, domain: Any, what: str) -> FunctionKey:
    """Validate a new function's name and domain; refuse a taken (domain, name) or a reserved domain."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise DocumentError(
            what,
            f"{name!r} is not a usable function name.",
            "Use letters, digits, '_' and '.', starting with a letter or '_' (e.g. 'ShuffleBlock').",
        )
    if not isinstance(domain, str) or not _DOMAIN.match(domain) or domain in RESERVED_DOMAINS:
        raise DocumentError(
            what,
            f"{domain!r} is not a usable function domain"
            + (" (operators of the runtimes live there)." if domain in RESERVED_DOMAINS else "."),
            "Use a dotted name of your own, e.g. 'custom' or 'my.package'.",
        )
    key = (domain, name, "")
    if key in model.functions:
        raise DocumentError(what, f"the model already has a function {domain}::{name}.", "Choose another name.")
    return key


def check_parameter_type(type_name: Any, what: str) -> ir.AttributeType:
    if isinstance(type_name, ir.AttributeType):
        type_name = type_name.name
    if not isinstance(type_name, str) or type_name.upper() not in PARAMETER_TYPES:
        raise DocumentError(
            what,
            f"{type_name!r} is not a parameter type.",
            f"Use one of: {', '.join(t.lower() for t in PARAMETER_TYPES)}.",
        )
    return ir.AttributeType[type_name.upper()]


def check_io_names(inputs: Iterable[Any], outputs: Iterable[Any], what: str) -> tuple[list[str], list[str]]:
    """The names of a new function's inputs and outputs: printable, unique, at least one of each."""
    ins, outs = list(inputs), list(outputs)
    for name in (*ins, *outs):
        if not isinstance(name, str) or not name or not name.isprintable():
            raise DocumentError(what, f"{name!r} is not a usable input/output name.", "Use non-empty printable names.")
    if not ins or not outs:
        raise DocumentError(
            what,
            "a function needs at least one input and one output (its first body passes input to output).",
            "Pass inputs=('x',), outputs=('y',) or more.",
        )
    if len(set(ins) | set(outs)) != len(ins) + len(outs):
        raise DocumentError(what, "input and output names must all differ.", "Rename the duplicates.")
    return ins, outs
