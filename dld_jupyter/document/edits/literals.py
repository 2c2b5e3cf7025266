"""The seed's literal syntax for tensors, lists and scalars: parse text to Python/numpy values and format them back.

Grammar (seed 000 "Parameters"): ``[1, 2, 3, 4]``, nested ``[[1, 2], [3, 4]]``, numbers with signs, decimals,
exponents, ``inf`` and ``nan``; ``true``/``false``; strings in single quotes with ``\\'`` and ``\\\\`` escapes.
Nesting must be rectangular (a tensor), and one list holds one kind of scalar (numbers, booleans or strings).
Every problem raises ``LiteralError`` naming the offending character; nothing else escapes ``parse_literal``.
Hostile text is bounded: digits are ASCII only, a number has at most 400 characters (Python refuses to convert
integers of more than 4300 digits with a raw ValueError), a finite-looking number that overflows float64
(``1e99999``) is refused instead of becoming infinity (``inf`` and ``nan`` must be written as such), and nesting
is at most 32 levels deep.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

Scalar = int | float | bool | str
# ASCII digits only: Python's \d (and int()/float()) also read Arabic-Indic or full-width digits, which no ONNX
# tool writes; accepting "١٢٣" as 123 would hide a paste from the wrong place.
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.IGNORECASE)
_MAX_NUMBER_CHARS = 400  # float64 needs 17 significant digits; 400 leaves room for written-out constants
_WORD = re.compile(r"[A-Za-z_]+")
_ESCAPES = {"'": "'", "\\": "\\", "n": "\n", "t": "\t"}
_MAX_DEPTH = 32  # a tensor of rank 32 is the most ONNX runtimes accept; deeper is a typo


class LiteralError(ValueError):
    """A literal that does not parse: ``position`` is the index of the offending character in ``text``."""

    def __init__(self, text: str, position: int, message: str, expected: str = "") -> None:
        self.text, self.position, self.message, self.expected = text, position, message, expected
        super().__init__(self.describe())

    def excerpt(self, width: int = 40) -> tuple[str, int]:
        """A one-line window of the text around the position and the caret's column in it."""
        start = max(0, self.position - width // 2)
        window = self.text[start : start + width].replace("\n", " ").replace("\t", " ")
        prefix = "…" if start > 0 else ""
        return prefix + window, len(prefix) + self.position - start

    def describe(self) -> str:
        line, column = self.excerpt()
        expected = f" (expected {self.expected})" if self.expected else ""
        return f"at character {self.position + 1}: {self.message}{expected}\n  {line}\n  {' ' * column}^"


@dataclass(frozen=True)
class _Parsed:
    value: Any
    shape: tuple[int, ...]  # () for a scalar
    kind: str  # "int" | "float" | "bool" | "str" | "empty"
    start: int


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def fail(self, message: str, expected: str = "", at: int | None = None) -> LiteralError:
        return LiteralError(self.text, self.i if at is None else at, message, expected)

    def skip(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def document(self) -> _Parsed:
        self.skip()
        if not self.peek():
            raise self.fail("the value is empty", "a number, 'text', true/false or [ ... ]")
        parsed = self.value(0)
        self.skip()
        if self.peek():
            raise self.fail(f"unexpected {self.peek()!r} after the value", "the end of the value")
        return parsed

    def value(self, depth: int) -> _Parsed:
        char = self.peek()
        if char == "[":
            return self.list(depth)
        if char == "'":
            return self.string()
        if char == "]":
            raise self.fail("a value is missing", "a value before ']'")
        if char == ",":
            raise self.fail("a value is missing", "a value before ','")
        if char == '"':
            raise self.fail("strings use single quotes", "'text'")
        return self.scalar()

    def scalar(self) -> _Parsed:
        start = self.i
        word = _WORD.match(self.text, self.i)
        if word and word.group().lower() in ("true", "false"):
            self.i = word.end()
            return _Parsed(word.group().lower() == "true", (), "bool", start)
        number = _NUMBER.match(self.text, self.i)
        if number is None:
            what = self.peek() if self.peek() else "the end"
            raise self.fail(f"unexpected {what!r}{_digit_hint(what)}", "a number, 'text', true/false or [ ... ]")
        self.i = number.end()
        following = self.peek()
        if following and (following.isalnum() or following in "._"):
            raise self.fail(f"unexpected {following!r} in a number{_digit_hint(following)}", "',', ']' or the end")
        token = number.group()
        if len(token) > _MAX_NUMBER_CHARS:
            raise self.fail(f"a number of {len(token)} characters", f"at most {_MAX_NUMBER_CHARS}", at=start)
        if re.fullmatch(r"[+-]?[0-9]+", token):
            return _Parsed(int(token), (), "int", start)
        value = float(token)
        if math.isinf(value) and "inf" not in token.lower():
            raise self.fail(f"{token} is beyond the float64 range", "a finite number, or inf written out", at=start)
        return _Parsed(value, (), "float", start)

    def string(self) -> _Parsed:
        start = self.i
        self.i += 1
        out: list[str] = []
        while True:
            char = self.peek()
            if not char:
                raise self.fail("the string is not closed", "a closing '", at=start)
            if char == "\\":
                escaped = self.text[self.i + 1 : self.i + 2]
                if escaped not in _ESCAPES:
                    raise self.fail(f"unknown escape \\{escaped}", "\\' \\\\ \\n or \\t")
                out.append(_ESCAPES[escaped])
                self.i += 2
                continue
            self.i += 1
            if char == "'":
                return _Parsed("".join(out), (), "str", start)
            out.append(char)

    def list(self, depth: int) -> _Parsed:
        start = self.i
        if depth >= _MAX_DEPTH:
            raise self.fail(f"nesting deeper than {_MAX_DEPTH} levels")
        self.i += 1
        items: list[_Parsed] = []
        while True:
            self.skip()
            if self.peek() == "]":
                self.i += 1
                break
            if not self.peek():
                raise self.fail("the list is not closed", "']'" if not items else "',' or ']'")
            items.append(self.value(depth + 1))
            self.skip()
            char = self.peek()
            if char == ",":
                self.i += 1
            elif char == "]":
                continue
            elif not char:
                raise self.fail("the list is not closed", "',' or ']'")
            else:
                raise self.fail(f"unexpected {char!r} in a list", "',' or ']'")
        return _combine(self, items, start)


def _digit_hint(char: str) -> str:
    return " (only the ASCII digits 0-9 are numbers here)" if char.isdigit() or char.isnumeric() else ""


def _kind_of(kinds: set[str]) -> str | None:
    kinds = kinds - {"empty"}
    if not kinds:
        return "empty"
    if kinds <= {"int", "float"}:
        return "float" if "float" in kinds else "int"
    return kinds.pop() if len(kinds) == 1 else None


def _combine(parser: _Parser, items: list[_Parsed], start: int) -> _Parsed:
    if not items:
        return _Parsed([], (0,), "empty", start)
    first = items[0]
    kinds: set[str] = set()
    for item in items:
        if item.shape != first.shape:
            raise parser.fail(
                f"ragged nesting: this item has shape {list(item.shape)}, the first has {list(first.shape)}",
                "items of one shape",
                at=item.start,
            )
        kinds.add(item.kind)
        if _kind_of(kinds) is None:
            raise parser.fail(f"mixed kinds: a {item.kind} among {first.kind} values", f"a {first.kind}", item.start)
    kind = _kind_of(kinds) or "empty"
    return _Parsed([item.value for item in items], (len(items), *first.shape), kind, start)


def parse_literal(text: str) -> Any:
    """A scalar (int, float, bool, str) or a nested list, rectangular; raises LiteralError."""
    if not isinstance(text, str):
        raise LiteralError(str(text), 0, "the value is not text")
    return _Parser(text).document().value


def parse_array(text: str, dtype: Any = None) -> np.ndarray:
    """The literal as a numpy array (of ``dtype`` when given); raises LiteralError."""
    parsed = _Parser(text).document() if isinstance(text, str) else parse_literal(text)
    try:
        if parsed.kind == "str":
            return np.array(parsed.value, dtype=np.str_ if dtype is None else dtype)
        if parsed.kind == "empty":
            return np.zeros(parsed.shape, dtype=np.float32 if dtype is None else dtype)
        if dtype is None:
            dtype = {"int": np.int64, "float": np.float32, "bool": np.bool_}[parsed.kind]
        return _cast(parsed, dtype)
    except (ValueError, TypeError, OverflowError) as exc:
        raise LiteralError(text, 0, f"the values do not fit {np.dtype(dtype).name}: {exc}") from exc


def _cast(parsed: _Parsed, dtype: Any) -> np.ndarray:
    target = np.dtype(dtype)
    if parsed.kind == "float" and target.kind in "iub":
        raise ValueError("a fractional number for an integer or bool type")
    if target.kind in "iu" and parsed.kind == "int":
        info = np.iinfo(target)
        flat = np.array(parsed.value, dtype=object).reshape(-1)
        bad = next((x for x in flat if not info.min <= x <= info.max), None)
        if bad is not None:
            raise ValueError(f"{bad} is outside {info.min}..{info.max}")
    if target.kind == "f" and parsed.kind in ("int", "float"):
        wide = np.array(parsed.value, dtype=np.float64)
        with np.errstate(over="ignore"):
            out = wide.astype(target)
        overflow = np.isfinite(wide) & ~np.isfinite(out)
        if overflow.any():  # a typed 70000 for float16 is a mistake, not infinity
            raise ValueError(f"{wide[overflow].flat[0]:g} is outside the range of {target.name}")
        return out
    return np.array(parsed.value, dtype=target)


# ------------------------------------------------------------------ formatting
def _scalar_text(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t") + "'"
    number = float(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    if isinstance(
        value, np.float16 | np.float32
    ):  # shortest text that gives back this float16/32 (0.1, not 0.10000000149)
        if number == 0 or 1e-4 <= abs(number) < 1e16:
            return np.format_float_positional(value, unique=True, trim="0")
        return np.format_float_scientific(value, unique=True, trim="0")
    return repr(number)


def format_literal(value: Any) -> str:
    """The literal text of a scalar, a (nested) list or a numpy array; parses back to the same values."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "V":  # bfloat16, float8 (ml_dtypes) print exactly through float64
            value = value.astype(np.float64)
        if value.dtype in (np.float16, np.float32):
            return _array_text(value)
        value = value.tolist()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_literal(item) for item in value) + "]"
    return _scalar_text(value)


def _array_text(array: np.ndarray) -> str:
    if array.ndim == 0:
        return _scalar_text(array[()])
    return "[" + ", ".join(_array_text(item) for item in array) + "]"
