"""An operator's signature as the document needs it: formal inputs/outputs and attribute types.

Reads the schema registry (``schema.py``) when it is there and falls back to ``onnx.defs``; local functions of
the model give their own signature. Attribute types are ``onnx_ir.AttributeType`` names (``"INT"``, ``"FLOATS"``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import onnx
import onnx_ir as ir


@dataclass(frozen=True)
class Formal:
    name: str
    optional: bool
    variadic: bool


@dataclass(frozen=True)
class AttrSpec:
    name: str
    type: str
    required: bool


@dataclass(frozen=True)
class Signature:
    inputs: tuple[Formal, ...]
    outputs: tuple[Formal, ...]
    attributes: dict[str, AttrSpec]
    function: str | None = None  # "domain::name" for a local function


def _type_name(t: Any) -> str:
    name = getattr(t, "name", None)
    return str(name if name is not None else t).upper()


def _from_registry(op_type: str, domain: str, opset: int | None) -> tuple[bool, Signature | None]:
    try:
        from dld_jupyter.document.operators.schema import registry
    except ImportError:
        return False, None
    info: Any = registry.get(op_type, domain, opset)
    if info is None:
        return True, None
    return True, Signature(
        tuple(Formal(p.name, bool(p.optional), bool(p.variadic)) for p in info.inputs),
        tuple(Formal(p.name, bool(p.optional), bool(p.variadic)) for p in info.outputs),
        {a.name: AttrSpec(a.name, _type_name(a.type), bool(a.required)) for a in info.attributes},
    )


def _from_defs(op_type: str, domain: str, opset: int | None) -> Signature | None:
    try:
        if opset is None:
            schema = onnx.defs.get_schema(op_type, domain=domain)
        else:
            schema = onnx.defs.get_schema(op_type, opset, domain=domain)
    except onnx.defs.SchemaError:
        return None
    option = onnx.defs.OpSchema.FormalParameterOption

    def formal(p: Any) -> Formal:
        return Formal(p.name, p.option == option.Optional, p.option == option.Variadic)

    return Signature(
        tuple(formal(p) for p in schema.inputs),
        tuple(formal(p) for p in schema.outputs),
        {n: AttrSpec(n, _type_name(a.type), bool(a.required)) for n, a in schema.attributes.items()},
    )


@functools.lru_cache(maxsize=4096)
def op_signature(op_type: str, domain: str, opset: int | None) -> Signature | None:
    """The signature of a standard or contrib operator at an opset version, or None when unknown."""
    found, sig = _from_registry(op_type, domain, opset)
    if found:
        return sig
    return _from_defs(op_type, domain, opset)


def function_signature(function: ir.Function) -> Signature:
    name = f"{function.domain}::{function.name}"
    return Signature(
        tuple(Formal(v.name or f"input_{i}", False, False) for i, v in enumerate(function.inputs)),
        tuple(Formal(v.name or f"output_{i}", False, False) for i, v in enumerate(function.outputs)),
        {n: AttrSpec(n, a.type.name, False) for n, a in function.attributes.items()},
        function=name,
    )


def node_signature(model: ir.Model, node: ir.Node) -> Signature | None:
    """The signature for ``node``: its local function, else its operator at the model's opset."""
    function = model.functions.get((node.domain, node.op_type, node.overload))
    if function is not None:
        return function_signature(function)
    opset = node.version if node.version is not None else model.opset_imports.get(node.domain)
    return op_signature(node.op_type, node.domain, opset)
