"""Attribute values as the text the parameter editor shows, and that text parsed back by the attribute's type.

INT/FLOAT/STRING are single values (a STRING is typed raw, without quotes); INTS/FLOATS/STRINGS and TENSOR use
the seed's literal syntax (``[1, 2]``, ``['a', 'b']``). Graph attributes are shown, not edited here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dld_jupyter.document.edits.literals import LiteralError, format_literal, parse_array, parse_literal
from dld_jupyter.document.edits.tensors import MAX_EDIT_ELEMENTS

LIST_TYPES = {"INTS": "int", "FLOATS": "float", "STRINGS": "str"}
EDITABLE = {"INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "TENSOR"}


def to_text(value: Any, type_name: str) -> str:
    """The text of an attribute value (a set value or a schema default)."""
    if value is None:
        return ""
    if type_name == "STRING":
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    if type_name in ("GRAPH", "GRAPHS"):
        return "(subgraph)" if type_name == "GRAPH" else f"({len(value)} subgraphs)"
    if type_name == "TENSOR":
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        if array.size > MAX_EDIT_ELEMENTS:
            return f"<{array.dtype.name} tensor of shape {list(array.shape)}: open the tensor editor>"
        return format_literal(array)
    if type_name == "TENSORS":
        return f"({len(value)} tensors)"
    if isinstance(value, str) and value.startswith("@"):
        return value  # a reference to a function attribute
    return format_literal(list(value) if isinstance(value, tuple) else value)


def _fail(text: str, message: str, expected: str) -> LiteralError:
    return LiteralError(text, 0, message, expected)


def from_text(text: str, type_name: str, current: Any = None) -> Any:
    """The value ``text`` denotes for an attribute of ``type_name``; raises LiteralError pointing at the problem."""
    if type_name == "STRING":
        return text
    if type_name == "TENSOR":
        dtype = np.asarray(current).dtype if current is not None and not isinstance(current, str) else None
        return parse_array(text, dtype)
    value = parse_literal(text)
    if type_name == "LITERAL":  # an undefined function parameter: the literal's own type (1, 0.5, [1, 2], 'a')
        return value
    if type_name == "INT":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(text, "this attribute holds one integer", "an integer such as 1")
        return value
    if type_name == "FLOAT":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(text, "this attribute holds one number", "a number such as 0.5")
        return float(value)
    if type_name in LIST_TYPES:
        kind = LIST_TYPES[type_name]
        if not isinstance(value, list):
            raise _fail(text, "this attribute holds a list", f"a list such as {_example(kind)}")
        for position_index, item in enumerate(value):
            ok = {
                "int": isinstance(item, int) and not isinstance(item, bool),
                "float": isinstance(item, int | float) and not isinstance(item, bool),
                "str": isinstance(item, str),
            }[kind]
            if not ok:
                position = _item_position(text, position_index)
                raise LiteralError(text, position, f"a list of {kind} values was expected", _example(kind))
        return [float(x) for x in value] if kind == "float" else value
    raise _fail(text, f"{type_name} attributes are not edited as text", "another attribute")


def _example(kind: str) -> str:
    return {"int": "[1, 2]", "float": "[0.5, 1.0]", "str": "['a', 'b']"}[kind]


def _item_position(text: str, index: int) -> int:
    """Where the ``index``-th top-level item of a list literal starts (for the caret)."""
    depth, count, quoted, i = 0, 0, False, 0
    while i < len(text):
        char = text[i]
        if quoted:
            if char == "\\":
                i += 1
            elif char == "'":
                quoted = False
        elif char == "'":
            quoted = True
            if depth == 1 and count == index:
                return i
        elif char == "[":
            if depth == 1 and count == index:
                return i
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 1:
            count += 1
        elif depth == 1 and count == index and not char.isspace():
            return i
        i += 1
    return 0
