"""Operator schema registry: every op of every domain and opset version the installed onnx knows.

The palette, the parameter editor, the type check list, "go to documentation" and the operator documentation
browser (operator_docs.py) all read this one registry.
ONNX Runtime's contrib schemas (`com.microsoft`, `com.microsoft.nchwc`) are added when onnxruntime imports:
`onnxruntime.capi.onnxruntime_pybind11_state.get_all_operator_schema()` exposes them (latest version only).
Building is lazy and cached: every version of every operator converted and onnxruntime imported for the contrib
schemas, 0.06 s alone on an idle machine, 0.26 s of a first snapshot in a kernel (commit 72eff7f). A lookup of one
operator (`get`) before the whole registry is built asks onnx for that operator alone (onnx's own domains), and so
does the list of a model's operators (`ops_for`, the canvas's palette) when the model imports no ONNX Runtime
domain: the first view of a model needs the schemas of the few operators it uses and its palette, and building every
schema there was most of ResNet-18's first snapshot and kept the kernel busy while the page painted it (issue 42);
the documentation and the checks' version lists build the whole registry when they first need it.
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
from collections.abc import Mapping
from typing import Any

import onnx
import onnx.defs
import onnx.helper
import onnx.numpy_helper

from dld_jupyter.document.operators.categories import category_for

# ORT also lists its internal layout-transformation domains; users never write those.
_CONTRIB_DOMAINS = ("com.microsoft", "com.microsoft.nchwc")
_DOMAIN_ALIASES = {"ai.onnx": ""}


@dataclasses.dataclass(frozen=True)
class FormalParam:
    """One input or output of an operator."""

    name: str
    types: tuple[str, ...]  # "tensor(float)", "seq(tensor(int64))", ...
    optional: bool
    variadic: bool
    homogeneous: bool  # variadic only: all occurrences share one type
    doc: str = dataclasses.field(default="", compare=False)
    type_str: str = ""  # the type variable ("T") or the concrete type


@dataclasses.dataclass(frozen=True)
class AttributeInfo:
    """One attribute of an operator; `default` is a python value (tuple for lists) or None."""

    name: str
    type: str  # "INT", "FLOATS", "TENSOR", "GRAPH", "STRING", ...
    required: bool
    default: Any = dataclasses.field(default=None, compare=False)
    doc: str = dataclasses.field(default="", compare=False)


@dataclasses.dataclass(frozen=True)
class TypeConstraint:
    """A type variable of an operator ("T") and the types it may stand for."""

    name: str
    types: tuple[str, ...]
    doc: str = ""


@dataclasses.dataclass(frozen=True)
class OpSchemaInfo:
    """An operator as one opset version defines it."""

    name: str
    domain: str
    since_version: int
    doc: str = dataclasses.field(compare=False)
    category: str
    deprecated: bool
    inputs: tuple[FormalParam, ...]
    outputs: tuple[FormalParam, ...]
    attributes: tuple[AttributeInfo, ...]
    min_input: int
    max_input: int
    min_output: int
    max_output: int
    type_constraints: tuple[TypeConstraint, ...] = dataclasses.field(default=(), compare=False)

    def attribute(self, name: str) -> AttributeInfo | None:
        return next((a for a in self.attributes if a.name == name), None)

    def input_param(self, index: int) -> FormalParam | None:
        """The formal parameter behind input terminal `index` (the last one repeats when variadic)."""
        return _param_at(self.inputs, index)

    def output_param(self, index: int) -> FormalParam | None:
        return _param_at(self.outputs, index)


def _param_at(params: tuple[FormalParam, ...], index: int) -> FormalParam | None:
    if index < len(params):
        return params[index]
    if params and params[-1].variadic:
        return params[-1]
    return None


def _default_value(default: onnx.AttributeProto | bytes | None) -> Any:
    if isinstance(default, bytes):  # ORT hands the AttributeProto serialized
        proto = onnx.AttributeProto()
        proto.ParseFromString(default)
        default = proto
    if default is None or not default.name:
        return None
    value = onnx.helper.get_attribute_value(default)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, list):
        return tuple(v.decode("utf-8", errors="replace") if isinstance(v, bytes) else v for v in value)
    return value


def _formal(param: Any) -> FormalParam:
    option = param.option.name  # "Single" | "Optional" | "Variadic"
    homogeneous = getattr(param, "is_homogeneous", None)
    if homogeneous is None:
        homogeneous = param.isHomogeneous
    # A variadic that may receive nothing (SequenceMap's additional_inputs) is optional for the user.
    empty_variadic = option == "Variadic" and getattr(param, "min_arity", 1) == 0
    return FormalParam(
        name=param.name,
        types=tuple(sorted(param.types)),
        optional=option == "Optional" or empty_variadic,
        variadic=option == "Variadic",
        homogeneous=bool(homogeneous),
        doc=param.description or "",
        type_str=str(getattr(param, "type_str", None) or getattr(param, "typeStr", "")),
    )


def _convert(schema: Any) -> OpSchemaInfo:
    attributes = tuple(
        AttributeInfo(
            name=a.name,
            type=a.type.name,
            required=bool(a.required),
            default=_default_value(getattr(a, "default_value", None) or getattr(a, "_default_value", None)),
            doc=a.description or "",
        )
        for a in sorted(schema.attributes.values(), key=lambda a: a.name)
    )
    return OpSchemaInfo(
        name=schema.name,
        domain=schema.domain,
        since_version=int(schema.since_version),
        doc=schema.doc or "",
        category=category_for(schema.name, schema.domain),
        deprecated=bool(schema.deprecated),
        inputs=tuple(_formal(p) for p in schema.inputs),
        outputs=tuple(_formal(p) for p in schema.outputs),
        attributes=attributes,
        min_input=int(schema.min_input),
        max_input=int(schema.max_input),
        min_output=int(schema.min_output),
        max_output=int(schema.max_output),
        type_constraints=tuple(
            TypeConstraint(str(c.type_param_str), tuple(c.allowed_type_strs), c.description or "")
            for c in schema.type_constraints
        ),
    )


def _contrib_schemas() -> tuple[list[Any], str]:
    try:
        from onnxruntime.capi import onnxruntime_pybind11_state as ort_state
    except Exception as exc:  # any import failure only means "no contrib ops"
        return [], f"onnxruntime is not importable ({exc}); com.microsoft schemas unavailable"
    getter = getattr(ort_state, "get_all_operator_schema", None)
    if getter is None:
        return [], "this onnxruntime build exposes no operator schemas; com.microsoft schemas unavailable"
    return [s for s in getter() if s.domain in _CONTRIB_DOMAINS], ""


class SchemaRegistry:
    """Lookup of operator schemas by (domain, op type, opset version). Thread-safe lazy build."""

    def __init__(self, contrib: bool = True) -> None:
        self._contrib = contrib
        self._lock = threading.Lock()
        # (domain, name) -> schemas sorted by since_version, and the parallel version list for bisect
        self._by_key: dict[tuple[str, str], list[OpSchemaInfo]] | None = None
        self._versions: dict[tuple[str, str], list[int]] = {}
        self._single: dict[tuple[str, str, int | None], OpSchemaInfo | None] = {}  # get()s before the build
        self.contrib_note = ""

    def _ensure(self) -> dict[tuple[str, str], list[OpSchemaInfo]]:
        if self._by_key is not None:
            return self._by_key
        with self._lock:
            if self._by_key is None:
                self._by_key = self._build()
        return self._by_key

    def _build(self) -> dict[tuple[str, str], list[OpSchemaInfo]]:
        raw: list[Any] = list(onnx.defs.get_all_schemas_with_history())
        if self._contrib:
            extra, self.contrib_note = _contrib_schemas()
            raw.extend(extra)
        by_key: dict[tuple[str, str], dict[int, OpSchemaInfo]] = {}
        for schema in raw:
            info = _convert(schema)
            by_key.setdefault((info.domain, info.name), {})[info.since_version] = info
        result = {key: [versions[v] for v in sorted(versions)] for key, versions in by_key.items()}
        self._versions = {key: [s.since_version for s in schemas] for key, schemas in result.items()}
        return result

    def get(self, op_type: str, domain: str = "", opset: int | None = None) -> OpSchemaInfo | None:
        """The schema in force at `opset` (None: the latest), or None when the op is unknown there."""
        domain = _DOMAIN_ALIASES.get(domain, domain)
        if self._by_key is None and domain not in _CONTRIB_DOMAINS:
            return self._get_one(op_type, domain, opset)
        schemas = self._ensure().get((domain, op_type))
        if not schemas:
            return None
        if opset is None:
            return schemas[-1]
        position = bisect.bisect_right(self._versions[(domain, op_type)], opset)
        return schemas[position - 1] if position else None

    def _get_one(self, op_type: str, domain: str, opset: int | None) -> OpSchemaInfo | None:
        """`get` of an operator of onnx's own domains without building the registry: onnx picks the version in force
        (the newest at or below `opset`) as the registry would; ONNX Runtime adds no schema to these domains."""
        key = (domain, op_type, opset)
        if key not in self._single:  # two threads may convert one schema twice: the same value
            try:
                found = onnx.defs.get_schema(op_type, domain=domain) if opset is None else (
                    onnx.defs.get_schema(op_type, opset, domain))
            except onnx.defs.SchemaError:
                self._single[key] = None
            else:
                self._single[key] = _convert(found)
        return self._single[key]

    def versions(self, op_type: str, domain: str = "") -> list[int]:
        """Every since_version at which `op_type` changed."""
        self._ensure()
        return list(self._versions.get((_DOMAIN_ALIASES.get(domain, domain), op_type), []))

    def ops_for(self, opset_imports: Mapping[str, int], include_deprecated: bool = False) -> list[OpSchemaInfo]:
        """Every op available to a model importing `opset_imports`, sorted by domain then name."""
        imports = {_DOMAIN_ALIASES.get(d, d): v for d, v in opset_imports.items()}
        if self._by_key is None and not imports.keys() & set(_CONTRIB_DOMAINS):  # onnx's domains only: each op alone
            keys = sorted({(s.domain, s.name) for s in onnx.defs.get_all_schemas_with_history() if s.domain in imports})
            return [schema for domain, name in keys if (schema := self._get_one(name, domain, imports[domain]))
                    is not None and (include_deprecated or not schema.deprecated)]
        found: list[OpSchemaInfo] = []
        for (domain, name), _ in sorted(self._ensure().items()):
            if domain not in imports:
                continue
            schema = self.get(name, domain, imports[domain])
            if schema is not None and (include_deprecated or not schema.deprecated):
                found.append(schema)
        return found

    def known_ops(self) -> list[tuple[str, str]]:
        """Every (domain, op type) known, in any version."""
        return sorted(self._ensure())

    def domains(self) -> list[str]:
        return sorted({domain for domain, _ in self._ensure()})

    def latest_opset(self, domain: str = "") -> int:
        """The newest opset version known for `domain` (the installed onnx's for the default domain)."""
        if _DOMAIN_ALIASES.get(domain, domain) == "":
            return int(onnx.defs.onnx_opset_version())
        return max((s[-1].since_version for (d, _), s in self._ensure().items() if d == domain), default=0)

    def __len__(self) -> int:
        return sum(len(v) for v in self._ensure().values())


registry = SchemaRegistry()
