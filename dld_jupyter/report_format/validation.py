"""Check report JSON against the shipped JSON Schema, without the `jsonschema` package.

A GPU host may have only numpy/onnx/onnxruntime, so this is a small interpreter of the subset of draft 2020-12
the schema file uses (a test checks the file uses nothing else, and that `jsonschema` agrees on good and bad
samples). Reading the schema file itself, instead of a second hand-written copy of the rules, keeps the two
in step.

Keywords handled: type (a name or a list of names), const, enum, minimum, maximum, required, properties, items, $ref
(local "#/$defs/..."), description (used to explain each error). Anything else in the schema is ignored.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, cast

SCHEMA_FILE = "dld-report.schema.json"
KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$ref",
        "title",
        "description",
        "type",
        "const",
        "enum",
        "minimum",
        "maximum",
        "required",
        "properties",
        "items",
    }
)
_TYPE_WORDS = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}


@dataclass(frozen=True)
class Problem:
    """One place where the data does not match the schema."""

    path: str  # JSON path, "$.layers[3].median_ms"
    message: str  # what is wrong
    hint: str  # what the field means / how to fix it

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" + (f" ({self.hint})" if self.hint else "")


@cache
def load_schema() -> dict[str, Any]:
    """The JSON Schema shipped as package data."""
    text = resources.files("dld_jupyter.report_format").joinpath("schema").joinpath(SCHEMA_FILE).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def json_type(value: object) -> str:
    """The JSON type name of a decoded value (bool is not a number, an integral float is not an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _type_ok(value: object, wanted: str) -> bool:
    actual = json_type(value)
    return actual == wanted or (wanted == "number" and actual == "integer")


def _show(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # not JSON data at all (a Python object passed in directly)
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Validator:
    def __init__(self, schema: dict[str, Any], limit: int) -> None:
        self.root = schema
        self.limit = limit
        self.problems: list[Problem] = []

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            ref = str(node["$ref"])
            if not ref.startswith("#/$defs/"):
                raise ValueError(f"unsupported $ref {ref!r} in the report schema")
            node = self.root["$defs"][ref.removeprefix("#/$defs/")]
        return node

    def add(self, path: str, message: str, node: dict[str, Any]) -> None:
        self.problems.append(Problem(path, message, str(node.get("description", ""))))

    def check(self, value: object, node: dict[str, Any], path: str) -> None:
        if len(self.problems) >= self.limit:
            return
        node = self.resolve(node)
        if "const" in node and value != node["const"]:
            self.add(path, f"must be {json.dumps(node['const'])}, found {_show(value)}", node)
            return
        if "enum" in node and value not in node["enum"]:
            choices = ", ".join(json.dumps(v) for v in node["enum"])
            self.add(path, f"must be one of {choices}, found {_show(value)}", node)
            return
        if "type" in node:
            wanted = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(_type_ok(value, w) for w in wanted):
                words = " or ".join(_TYPE_WORDS.get(str(w), str(w)) for w in wanted)
                self.add(path, f"must be {words}, found {json_type(value)} {_show(value)}", node)
                return
        if (
            "minimum" in node
            and isinstance(value, int | float)
            and not isinstance(value, bool)
            and value < node["minimum"]
        ):
            self.add(path, f"must be at least {node['minimum']}, found {_show(value)}", node)
        if (
            "maximum" in node
            and isinstance(value, int | float)
            and not isinstance(value, bool)
            and value > node["maximum"]
        ):
            self.add(path, f"must be at most {node['maximum']:g}, found {_show(value)}", node)
        if isinstance(value, dict):
            self.check_object(value, node, path)
        elif isinstance(value, list) and "items" in node:
            for i, item in enumerate(value):
                self.check(item, node["items"], f"{path}[{i}]")

    def check_object(self, value: dict[str, Any], node: dict[str, Any], path: str) -> None:
        properties: dict[str, Any] = node.get("properties", {})
        for key in node.get("required", []):
            if key not in value:
                sub = self.resolve(properties.get(key, {}))
                self.add(f"{path}.{key}", "is required but missing", sub)
        for key, item in value.items():
            if key in properties:
                self.check(item, properties[key], f"{path}.{key}")


Check = Callable[[object], bool]
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _compile(node: dict[str, Any], root: dict[str, Any]) -> Check:
    """A fast yes/no checker of `node`: no paths, no messages, exact JSON-decoded types only.

    Opening a 5,000-layer report must stay well under a second; the interpreter above builds a path string
    per value. This one says only "valid", and any "no" (or a value of an unusual Python type) goes to the
    interpreter, which then gives the real answer with paths. So it may be stricter, never more lenient.
    """
    node = _Validator(root, 1).resolve(node)
    if "const" in node or "enum" in node:
        allowed = [node["const"]] if "const" in node else list(node["enum"])
        return lambda v: v in allowed and type(v) in (str, int, float, bool, type(None))
    types: tuple[type, ...] = ()
    for name in node["type"] if isinstance(node.get("type"), list) else [node.get("type")] if "type" in node else []:
        types += _PY_TYPES[str(name)]
    minimum = node.get("minimum")
    maximum = node.get("maximum")
    props = {k: _compile(v, root) for k, v in node.get("properties", {}).items()}
    required = list(node.get("required", []))
    item = _compile(node["items"], root) if "items" in node else None

    if not props and not required and item is None and types:
        # Leaves (most values) get a one-line closure: the function calls are the cost here.
        if minimum is None and maximum is None:
            return lambda v: type(v) in types
        if type(None) not in types:
            low: Any = -math.inf if minimum is None else minimum
            high: Any = math.inf if maximum is None else maximum
            return lambda v: type(v) in types and low <= v <= high

    def check(v: object) -> bool:
        kind = type(v)
        if types and kind not in types:
            return False
        if minimum is not None and (kind is int or kind is float) and v < minimum:
            return False
        if maximum is not None and (kind is int or kind is float) and v > maximum:
            return False
        if kind is dict:
            mapping = cast("dict[str, object]", v)  # exactly a dict: `kind` is its type
            for key in required:
                if key not in mapping:
                    return False
            for key, value in mapping.items():
                sub = props.get(key)
                if sub is not None and not sub(value):
                    return False
        elif kind is list and item is not None:
            return all(map(item, cast("list[object]", v)))
        return True

    return check


@cache
def _fast_check() -> Check:
    return _compile(load_schema(), load_schema())


def is_valid_fast(data: object) -> bool:
    """True only when `data` certainly matches the schema (see _compile); False means "ask validate"."""
    return _fast_check()(data)


def validate(data: object, limit: int = 20) -> list[Problem]:
    """Every problem (up to `limit`) that keeps `data` from being a report of the shipped schema."""
    if is_valid_fast(data):
        return []
    validator = _Validator(load_schema(), limit)
    validator.check(data, validator.root, "$")
    return validator.problems


def cross_check(data: dict[str, Any], limit: int = 20) -> list[Problem]:
    """Rules a JSON Schema cannot say: references between sections. Run after `validate` found nothing."""
    problems: list[Problem] = []
    layers = data.get("layers", [])
    seen: dict[int, int] = {}
    for pos, layer in enumerate(layers):
        if layer["index"] in seen:
            problems.append(
                Problem(
                    f"$.layers[{pos}].index",
                    f"repeats index {layer['index']} of $.layers[{seen[layer['index']]}]",
                    "layer indexes must be unique",
                )
            )
        seen.setdefault(layer["index"], pos)
    for pos, event in enumerate(data.get("timeline", [])):
        if event["layer"] >= len(layers):
            problems.append(
                Problem(
                    f"$.timeline[{pos}].layer",
                    f"is {event['layer']} but there are only {len(layers)} layers",
                    "use a position in $.layers, or -1 for no layer",
                )
            )
    for pos, record in enumerate(data.get("kernels", [])):
        if record.get("layer", -1) >= len(layers):
            problems.append(
                Problem(
                    f"$.kernels[{pos}].layer",
                    f"is {record['layer']} but there are only {len(layers)} layers",
                    "use a position in $.layers, or -1 for a kernel no layer launched",
                )
            )
    for pos, series in enumerate(data.get("gpu_metrics", [])):
        times, values = series.get("times_ms", []), series.get("values", [])
        if len(times) != len(values):
            problems.append(
                Problem(
                    f"$.gpu_metrics[{pos}]",
                    f"has {len(times)} times_ms but {len(values)} values",
                    "write one value per sample time",
                )
            )
    problems += _interval_problems(data)
    problems += _kernel_pass_problems(data)
    passes = data.get("passes_ms", [])
    index = data["summary"].get("median_pass_index", 0)
    if passes and index >= len(passes):
        problems.append(
            Problem(
                "$.summary.median_pass_index",
                f"is {index} but passes_ms has {len(passes)} entries",
                "use a position in $.passes_ms",
            )
        )
    return problems[:limit]


def _kernel_pass_problems(data: dict[str, Any]) -> list[Problem]:
    """Kernel pass indexes (each record's, the capture's median pass) past the kernel passes the capture holds: a
    `pass_index` of 10**12 made the dashboard's per-pass arrays that long."""
    capture = data.get("kernel_capture", {})
    count = max(capture.get("passes", 0), len(capture.get("passes_ms", [])), len(data.get("passes_ms", [])))
    if not count:
        return []
    hint = f"passes are numbered 0 to {count - 1} (kernel_capture.passes, passes_ms)"
    found = [("$.kernel_capture.median_pass", capture.get("median_pass"))]
    found += [(f"$.kernels[{pos}].pass_index", k.get("pass_index")) for pos, k in enumerate(data.get("kernels", []))]
    return [Problem(path, f"is {index} but there are {count} kernel passes", hint)
            for path, index in found if isinstance(index, int) and index >= count][:20]


INTERVALS = ("median_ci_ms", "profiled_median_ci_ms")  # summary fields; layers carry "ci_ms"


def _interval_problem(value: object) -> str | None:
    """Why a confidence interval is not [low, high] of two finite numbers with low <= high (None: it is)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        return f"is {_show(value)}: an interval has two bounds"
    low, high = value
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return f"is {_show(value)}: both bounds must be finite numbers"
    if low > high:
        return f"is {_show(value)}: the low bound is above the high bound"
    return None


def _interval_problems(data: dict[str, Any]) -> list[Problem]:
    """Confidence intervals the schema types as number arrays but every view reads as [low, high]: a report with a
    one-element `median_ci_ms` crashed `report show` and `report html` with an IndexError."""
    hint = "write [low, high] (ms), or null when there are too few passes"
    found = [(f"$.summary.{key}", data["summary"].get(key)) for key in INTERVALS]
    found += [(f"$.layers[{pos}].ci_ms", layer.get("ci_ms")) for pos, layer in enumerate(data.get("layers", []))]
    return [Problem(path, why, hint) for path, value in found if (why := _interval_problem(value)) is not None]
