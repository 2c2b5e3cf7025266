"""The seed's literal syntax: parsing, errors at the offending character, fuzzing, format→parse round trip."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dld_jupyter.document.edits.literals import LiteralError, format_literal, parse_array, parse_literal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2, 3, 4]", [1, 2, 3, 4]),
        ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]),
        ("  [ -1 , +2 ]  ", [-1, 2]),
        ("[1.5, -2e3, 3E-2, .5, 7.]", [1.5, -2000.0, 0.03, 0.5, 7.0]),
        ("[true, false, True]", [True, False, True]),
        ("'Some text'", "Some text"),
        ("'It\\'s alive!'", "It's alive!"),
        ("'back\\\\slash'", "back\\slash"),
        ("['a', 'b,c']", ["a", "b,c"]),
        ("[]", []),
        ("[[], []]", [[], []]),
        ("[1, 2,]", [1, 2]),
        ("42", 42),
        ("-inf", -math.inf),
    ],
)
def test_parses(text: str, expected: object) -> None:
    assert parse_literal(text) == expected


def test_nan_and_infinity() -> None:
    values = parse_literal("[nan, inf, -inf, Infinity]")
    assert math.isnan(values[0]) and values[1:] == [math.inf, -math.inf, math.inf]


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("[1, [2]]", 4, "ragged"),
        ("[[1, 2], [3]]", 9, "ragged"),
        ("[1, 2", 5, "not closed"),
        ("['a', 1]", 6, "mixed"),
        ("[true, 1]", 7, "mixed"),
        ("1.2.3", 3, "in a number"),
        ("[,]", 1, "missing"),
        ("", 0, "empty"),
        ("   ", 3, "empty"),
        ("'open", 0, "not closed"),
        ('"double"', 0, "single quotes"),
        ("[1 2]", 3, "in a list"),
        ("'a\\q'", 2, "escape"),
        ("[1] x", 4, "after the value"),
        ("12abc", 2, "in a number"),
        ("@", 0, "unexpected"),
    ],
)
def test_errors_point_at_the_character(text: str, position: int, fragment: str) -> None:
    with pytest.raises(LiteralError) as info:
        parse_literal(text)
    assert info.value.position == position
    assert fragment in info.value.message
    _line, column = info.value.excerpt()
    assert "^" in str(info.value) and column >= 0


def test_excerpt_of_a_long_text_keeps_the_caret_under_the_character() -> None:
    text = "[" + ", ".join(str(i) for i in range(100)) + ", x]"
    with pytest.raises(LiteralError) as info:
        parse_literal(text)
    line, column = info.value.excerpt()
    assert line[column] == "x"


def test_deep_nesting_is_an_error_not_a_recursion_crash() -> None:
    with pytest.raises(LiteralError):
        parse_literal("[" * 5000 + "]" * 5000)


def test_parse_array_types() -> None:
    assert parse_array("[[1, 2], [3, 4]]").dtype == np.int64
    assert parse_array("[1.5, 2]").dtype == np.float32
    assert parse_array("[true]").dtype == np.bool_
    assert parse_array("['a', 'bc']").dtype.kind == "U"
    assert parse_array("[1, 2]", np.float16).dtype == np.float16
    assert parse_array("[]").shape == (0,)
    with pytest.raises(LiteralError, match="do not fit"):
        parse_array("[1.5]", np.int32)
    with pytest.raises(LiteralError, match="outside"):
        parse_array("[300]", np.uint8)
    with pytest.raises(LiteralError, match="range of float16"):
        parse_array("[1.5, 70000]", np.float16)


_scalars = st.one_of(
    st.integers(min_value=-(2**62), max_value=2**62),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=8),
)


@st.composite
def _tensors(draw: st.DrawFn) -> object:
    kind = draw(st.sampled_from(["int", "float", "bool", "str"]))
    shape = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))
    elem = {
        "int": st.integers(-(2**62), 2**62),
        "float": st.floats(allow_nan=False),
        "bool": st.booleans(),
        "str": st.text(max_size=5),
    }[kind]
    size = int(np.prod(shape)) if shape else 1
    flat = draw(st.lists(elem, min_size=size, max_size=size))
    if not shape:
        return flat[0]
    return np.array(flat, dtype=object).reshape(shape).tolist()


@settings(max_examples=300, deadline=None)
@given(_tensors())
def test_round_trip(value: object) -> None:
    assert parse_literal(format_literal(value)) == value


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(width=16), min_size=1, max_size=6))
def test_float16_round_trip(values: list[float]) -> None:
    array = np.array(values, dtype=np.float16)
    assert np.array_equal(parse_array(format_literal(array), np.float16), array, equal_nan=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=6))
def test_float32_round_trip(values: list[float]) -> None:
    array = np.array(values, dtype=np.float32)
    assert np.array_equal(parse_array(format_literal(array), np.float32), array, equal_nan=True)


def test_float32_prints_shortest() -> None:
    assert format_literal(np.array([0.1, 1.0, 1e30, -2.5e-7], np.float32)) == "[0.1, 1.0, 1.0e+30, -2.5e-07]"
    assert format_literal(np.array([[0.1]], np.float16)) == "[[0.1]]"
    assert format_literal(np.float32(3.0)) == "3.0"


_alphabet = st.sampled_from(list("[],'\\ -+.eE0123456789truefalsnix\"@\n\t"))


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=_alphabet, max_size=30))
def test_fuzz_only_literal_errors_escape(text: str) -> None:
    try:
        parse_literal(text)
        parse_array(text)
    except LiteralError as exc:
        assert 0 <= exc.position <= len(text)
        exc.describe()


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_any_unicode(text: str) -> None:
    with contextlib.suppress(LiteralError):
        parse_literal(text)
