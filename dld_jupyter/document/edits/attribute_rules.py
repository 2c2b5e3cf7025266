"""Value rules for attribute edits, checked before an edit applies: a refused value changes nothing.

Why: the ONNX schema only gives an attribute's type. Values the type admits can still be unsavable (an int above
int64 makes ``save`` fail with a raw SerdeError until undone) or meaningless to every runtime (``auto_pad="BOGUS"``,
a negative dilation, ``pads`` of the wrong length). The rules here are data, not code paths:

- generic, for every operator: INT/INTS within int64, FLOAT/FLOATS within float32 (a finite 1e39 would be stored
  as infinity), STRING/STRINGS encodable as UTF-8, and the enumerations of ``ENUMS`` (``auto_pad`` everywhere);
- per operator family (``SPATIAL_OPS``: Conv, ConvTranspose, pooling, ...): the sign of each list entry and its
  length tied to the spatial rank (``pads`` = 2 x rank, ``kernel_shape``/``strides``/``dilations`` = rank), the
  rank taken from the data input's shape, else the weight's, else the node's other spatial attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError

T = ir.AttributeType
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
FLOAT32_MAX = float(np.finfo(np.float32).max)
# "" is how some exporters write NOTSET, and onnxruntime reads it so
_PAD_MODES = frozenset({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", ""})

# (op type or "*", attribute) -> allowed values; unions over opset versions so no valid old model is refused
ENUMS: dict[tuple[str, str], frozenset[Any]] = {
    ("*", "auto_pad"): _PAD_MODES,
    ("RNN", "direction"): frozenset({"forward", "reverse", "bidirectional"}),
    ("GRU", "direction"): frozenset({"forward", "reverse", "bidirectional"}),
    ("LSTM", "direction"): frozenset({"forward", "reverse", "bidirectional"}),
    ("DepthToSpace", "mode"): frozenset({"DCR", "CRD"}),
    ("Pad", "mode"): frozenset({"constant", "reflect", "edge", "wrap"}),
    ("Resize", "mode"): frozenset({"nearest", "linear", "cubic"}),
    ("Upsample", "mode"): frozenset({"nearest", "linear", "bilinear"}),
    ("Resize", "nearest_mode"): frozenset({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}),
    ("Resize", "coordinate_transformation_mode"): frozenset(
        {
            "half_pixel",
            "half_pixel_symmetric",
            "pytorch_half_pixel",
            "align_corners",
            "asymmetric",
            "tf_half_pixel_for_nn",
            "tf_crop_and_resize",
        }
    ),
    ("Resize", "keep_aspect_ratio_policy"): frozenset({"stretch", "not_larger", "not_smaller"}),
    ("GridSample", "mode"): frozenset({"bilinear", "nearest", "bicubic", "linear", "cubic"}),
    ("GridSample", "padding_mode"): frozenset({"zeros", "border", "reflection"}),
    ("ScatterElements", "reduction"): frozenset({"none", "add", "mul", "max", "min"}),
    ("ScatterND", "reduction"): frozenset({"none", "add", "mul", "max", "min"}),
    ("MaxPool", "ceil_mode"): frozenset({0, 1}),
    ("AveragePool", "ceil_mode"): frozenset({0, 1}),
    ("LpPool", "ceil_mode"): frozenset({0, 1}),
    ("AveragePool", "count_include_pad"): frozenset({0, 1}),
    ("MaxPool", "storage_order"): frozenset({0, 1}),
}


@dataclass(frozen=True)
class ListRule:
    """How entries of a spatial attribute are constrained: ``minimum`` per entry, ``per_axis`` entries per axis."""

    minimum: int
    per_axis: int | None  # None: the length is not tied to the rank


_SPATIAL_RULES: dict[str, ListRule] = {
    "kernel_shape": ListRule(1, 1),
    "strides": ListRule(1, 1),
    "dilations": ListRule(1, 1),
    "pads": ListRule(0, 2),
    "output_padding": ListRule(0, 1),
    "output_shape": ListRule(1, 1),
    "group": ListRule(1, None),
    "p": ListRule(1, None),
}
# op type -> index of the weight input whose rank is 2 + the spatial rank (None: no weight)
SPATIAL_OPS: dict[str, int | None] = {
    "Conv": 1,
    "ConvTranspose": 1,
    "ConvInteger": 1,
    "DeformConv": 1,
    "QLinearConv": 3,
    "MaxPool": None,
    "AveragePool": None,
    "LpPool": None,
    "MaxUnpool": None,
}


def _refuse(what: str, why: str, fix: str) -> DocumentError:
    return DocumentError(what, why, fix)


def _values(attr: ir.Attr) -> list[Any]:
    value = attr.value
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        return [value]
    return list(value)


def _check_generic(attr: ir.Attr, what: str) -> None:
    if attr.type in (T.INT, T.INTS):
        bad = next((v for v in _values(attr) if not INT64_MIN <= int(v) <= INT64_MAX), None)
        if bad is not None:
            raise _refuse(what, f"{bad} does not fit a 64-bit integer.", f"Use a value in {INT64_MIN}..{INT64_MAX}.")
    elif attr.type in (T.FLOAT, T.FLOATS):
        bad = next((v for v in _values(attr) if np.isfinite(v) and abs(v) > FLOAT32_MAX), None)
        if bad is not None:
            raise _refuse(
                what,
                f"{bad:g} does not fit a 32-bit float (it would be stored as infinity).",
                f"Use a value within ±{FLOAT32_MAX:.4g}.",
            )
    elif attr.type in (T.STRING, T.STRINGS):
        for text in _values(attr):
            try:
                text.encode("utf-8") if isinstance(text, str) else bytes(text)
            except UnicodeEncodeError as exc:
                raise _refuse(
                    what,
                    f"the text {text!r} is not valid Unicode ({exc.reason}).",
                    "Remove the unpaired surrogate characters.",
                ) from exc


def _check_enum(node: ir.Node, attr: ir.Attr, what: str) -> None:
    allowed = ENUMS.get((node.op_type, attr.name)) or ENUMS.get(("*", attr.name))
    if allowed is None or attr.type not in (T.STRING, T.INT):
        return
    value = attr.value.decode("utf-8", "replace") if isinstance(attr.value, bytes) else attr.value
    if value not in allowed:
        choices = ", ".join(sorted(str(v) for v in allowed if v != ""))
        raise _refuse(what, f"{value!r} is not a valid {attr.name} for {node.op_type}.", f"Use one of: {choices}.")


def _rank(value: ir.Value | None) -> int | None:
    if value is None or value.shape is None:
        return None
    return len(value.shape)


def spatial_rank(node: ir.Node, editing: str) -> tuple[int | None, str]:
    """The number of spatial axes of a conv/pool node and where it was read; (None, "") when unknown."""
    inputs = node.inputs
    data = _rank(inputs[0]) if inputs else None
    if data is not None and data >= 3:
        return data - 2, f"the input has rank {data}"
    weight_at = SPATIAL_OPS.get(node.op_type)
    if weight_at is not None and weight_at < len(inputs):
        weight = _rank(inputs[weight_at])
        if weight is not None and weight >= 3:
            return weight - 2, f"the weight has rank {weight}"
    for name, rule in _SPATIAL_RULES.items():
        other = node.attributes.get(name)
        if name == editing or other is None or rule.per_axis is None or other.type != T.INTS:
            continue
        count = len(other.value)
        if count and count % rule.per_axis == 0:
            return count // rule.per_axis, f"{name} has {count} entries"
    return None, ""


def _check_spatial(node: ir.Node, attr: ir.Attr, what: str) -> None:
    rule = _SPATIAL_RULES.get(attr.name)
    if node.op_type not in SPATIAL_OPS or rule is None or attr.type not in (T.INT, T.INTS):
        return
    values = [int(v) for v in _values(attr)]
    bad = next((v for v in values if v < rule.minimum), None)
    if bad is not None:
        sign = "positive" if rule.minimum > 0 else "zero or positive"
        raise _refuse(what, f"{attr.name} entries must be {sign}, got {bad}.", f"Use values ≥ {rule.minimum}.")
    if rule.per_axis is None or attr.type != T.INTS:
        return
    if not values:
        raise _refuse(what, f"{attr.name} is empty.", "Give one value per spatial axis, or reset the attribute.")
    rank, source = spatial_rank(node, attr.name)
    if rank is None:
        if len(values) % rule.per_axis:
            raise _refuse(
                what,
                f"{attr.name} needs {rule.per_axis} entries per spatial axis, got {len(values)}.",
                "Give begin values for every axis, then end values.",
            )
        return
    expected = rank * rule.per_axis
    if len(values) != expected:
        per = "begin and end for each of" if rule.per_axis == 2 else "one for each of"
        raise _refuse(
            what,
            f"{attr.name} needs {expected} entries ({per} {rank} spatial axes: {source}), got {len(values)}.",
            f"Give {expected} values.",
        )


def check_attribute(node: ir.Node, attr: ir.Attr) -> None:
    """Raise DocumentError when ``attr`` is not a valid value for ``node`` (nothing is changed here)."""
    what = f"Set attribute {attr.name!r} of {node.name or node.op_type}"
    _check_generic(attr, what)
    _check_enum(node, attr, what)
    _check_spatial(node, attr, what)
