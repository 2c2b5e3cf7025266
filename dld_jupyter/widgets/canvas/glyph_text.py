"""What a glyph says besides its op type: the node's name when it says more, and a detail line (main weight shape
and one or two key attributes), so two convolutions can be told apart where every glyph used to read `Conv / Conv`.

Exporters name nodes after their op (`/layer1/layer1.0/conv1/Conv`, `node_Conv_12`, `Identity_88`): such a name
repeats the title and is left out; `conv1` or `q_proj` is kept. The detail reads like Netron's: `W 64×3×7×7 · k7×7
s2`. Pure text: graph_payload puts it into NodeData, the browser draws it below the title when zoomed in enough.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import onnx

_NOISE = re.compile(r"[\d_.:\-]+")
MAX_DETAIL = 36


def informative_name(name: str, op_type: str, own_scope: bool = True) -> str:
    """The node's own name when it says more than its op type, else its innermost scope when that scope holds
    this node alone (`conv1` of `/layer1/layer1.0/conv1/Conv`), else "". A scope of many nodes is what their
    group shows: repeated on each glyph it read `Shape / model` everywhere."""
    scope, _, leaf = name.rpartition("/")
    own = leaf.removeprefix("node_")
    if _NOISE.sub("", own.lower().replace(op_type.lower(), "")):
        return own
    return scope.rsplit("/", 1)[-1] if own_scope else ""


def _dims(shape: Sequence[int | str]) -> str:
    return "×".join(str(d) for d in shape) if shape else "scalar"


def _ints(value: object) -> list[int] | None:
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return [int(v) for v in value]
    return None


def key_attributes(op_type: str, attributes: Mapping[str, object]) -> list[str]:
    """One or two attributes that tell this op's instances apart (kernel, stride, groups, heads, axis…)."""
    out: list[str] = []
    kernel = _ints(attributes.get("kernel_shape"))
    if kernel:
        out.append("k" + "×".join(map(str, kernel)))
    strides = _ints(attributes.get("strides"))
    if strides and any(s != 1 for s in strides):
        out.append("s" + "×".join(map(str, strides)) if len(set(strides)) > 1 else f"s{strides[0]}")
    group = attributes.get("group")
    if isinstance(group, int) and group > 1:
        out.append(f"g{group}")
    for key, short in (("num_heads", "heads "), ("axis", "axis "), ("perm", "perm "), ("to", "to ")):
        value = attributes.get(key)
        if value is not None and len(out) < 2:
            if key == "to" and isinstance(value, int):
                out.append(short + _dtype_name(value))  # Cast's target: `to float16`, not `to 10`
                continue
            out.append(short + (",".join(map(str, value)) if isinstance(value, list) else str(value)))
    return out[:2] if op_type not in ("Conv", "ConvTranspose", "MaxPool", "AveragePool") else out[:3]


def detail_line(
    op_type: str, weights: Sequence[Sequence[int | str] | None], attributes: Mapping[str, object]
) -> str:
    """`W 64×3×7×7 · k7×7 s2`: the biggest weight input's shape and the key attributes ("" when neither)."""
    parts: list[str] = []
    shapes = [s for s in weights if s is not None]
    if shapes:
        main = max(shapes, key=lambda s: (len(s), _size(s)))
        parts.append("W " + _dims(main))
    parts.extend(key_attributes(op_type, attributes))
    text = " · ".join(parts[:1]) + ((" · " if parts[:1] and parts[1:] else "") + " ".join(parts[1:]))
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"


def _dtype_name(code: int) -> str:
    """ONNX's TensorProto element type as users read it (`float16`), or the number when unknown."""
    try:
        return str(onnx.TensorProto.DataType.Name(code)).lower()
    except ValueError:
        return str(code)


def _size(shape: Sequence[int | str]) -> int:
    total = 1
    for d in shape:
        total *= d if isinstance(d, int) else 1
    return total
