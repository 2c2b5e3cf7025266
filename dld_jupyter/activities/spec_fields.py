"""Spec fields checked against their own dataclass annotations: the one type check of every spec kind and settings
group (`OrtProfileSpec`, the TensorRT kinds, `TrtSettings`, `ProfilerSettings`, the analysis spec, a sweep's
settings).

Why: a spec arrives from JSON, a form or keyword arguments, and a wrong type must be refused on construction with
the option's name rather than misread later. The check used to be a hand-kept table per kind, and a field added
without its row was never checked: `OrtProfileSpec(kernel_records="no")` was accepted and turned records ON (a
non-empty string is true). Reading the annotations leaves nothing to keep in step: a new field is checked by the
type it declares. Rules: `bool` is only True/False (never 1); `int` is never a bool; `float` takes an int too (JSON
writes 100.0 as 100); `X | None` takes None; `tuple[X, ...]` a tuple of X; a dataclass field (a settings group) an
instance of that class, which checked itself on construction; `dict[K, V]` a dict of them (a JSON object).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, Union

from dld_jupyter.activities.errors import SpecError


def check_fields(obj: Any, group: str = "") -> None:
    """SpecError `<group.>field: expected <type>, got <value>` for the first field whose value is not of its
    annotated type (`obj` a dataclass instance whose annotations resolve in its module)."""
    hints = _hints(type(obj))
    for f in dataclasses.fields(obj):
        hint = hints.get(f.name)
        if hint is None or not f.init:
            continue
        value = getattr(obj, f.name)
        if not matches(value, hint):
            name = f"{group}.{f.name}" if group else f.name
            raise SpecError(f"{name}: expected {describe(hint)}, got {value!r}")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of `cls` (resolved once per class: specs are built per run, forms per keystroke)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _union_args(hint: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return typing.get_args(hint)
    return None


def matches(value: Any, hint: Any) -> bool:
    """Whether `value` is of the annotated type `hint` (the rules of the module docstring)."""
    if hint is Any:
        return True
    if hint is type(None) or hint is None:
        return value is None
    members = _union_args(hint)
    if members is not None:
        return any(matches(value, member) for member in members)
    origin = typing.get_origin(hint)
    if origin is Literal:
        return any(value == choice and type(value) is type(choice) for choice in typing.get_args(hint))
    if origin in (tuple, list):
        return isinstance(value, origin) and _items_match(value, typing.get_args(hint))
    if origin is dict:
        key, item = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(matches(k, key) and matches(v, item) for k, v in value.items())
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    raise TypeError(f"spec fields: no check for the annotation {hint!r}; give the field a plain type")


def _items_match(value: tuple[Any, ...] | list[Any], args: tuple[Any, ...]) -> bool:
    if not args:
        return True
    if len(args) == 2 and args[1] is Ellipsis:
        return all(matches(item, args[0]) for item in value)
    return len(value) == len(args) and all(matches(item, arg) for item, arg in zip(value, args, strict=True))


def describe(hint: Any) -> str:
    """The annotation as a message says it: `int or null`, `tuple of str`, `TrtSettings`."""
    if hint is type(None) or hint is None:
        return "null"
    members = _union_args(hint)
    if members is not None:
        return " or ".join(describe(member) for member in members)
    origin = typing.get_origin(hint)
    if origin is Literal:
        return " or ".join(repr(choice) for choice in typing.get_args(hint))
    if origin in (tuple, list):
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"{origin.__name__} of {describe(args[0])}"
        return f"{origin.__name__} ({', '.join(describe(arg) for arg in args)})" if args else origin.__name__
    if origin is dict:
        return "object"
    return getattr(hint, "__name__", str(hint))
