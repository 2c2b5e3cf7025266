"""Hostile literal text: a generated corpus and a fuzzer. Only LiteralError escapes, with a message saying what.

Set ``DLD_FUZZ_EXAMPLES`` to run the fuzzers longer than CI does (the run for issue 17 used 100,000 per fuzzer).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dld_jupyter.document.edits.literals import LiteralError, parse_array, parse_literal

FUZZ = int(os.environ.get("DLD_FUZZ_EXAMPLES", "400"))
FOREIGN_DIGITS = "٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹०१२३४५६७८९０１２３４５６７８９𝟎𝟏²³¹"


def _corpus() -> list[tuple[str, str, str | None]]:
    """(text, a fragment of the expected message, dtype or None)."""
    cases: list[tuple[str, str, str | None]] = []
    for digit in FOREIGN_DIGITS:
        cases.append((digit, "ASCII digits", None))
        cases.append((f"[1, {digit}{digit}]", "ASCII digits", None))
        cases.append((f"12{digit}", "ASCII digits", None))
    for count in (401, 1000, 4301, 5000, 20000):
        cases.append(("7" * count, "characters", None))
        cases.append((f"[{'1' * count}]", "characters", "float32"))
        cases.append(("0." + "3" * count, "characters", None))
    for text in ("1e99999", "-1e400", "1.8e308", "[1, 2e308]", "1e309", "-9.9e999", "1E+400"):
        cases.append((text, "beyond the float64 range", None))
        cases.append((text, "beyond the float64 range", "float64"))
    for depth in (33, 100, 10_000):
        cases.append(("[" * depth + "]" * depth, "nesting deeper", None))
    for text, dtype in (
        ("9223372036854775808", "int64"),
        ("-9223372036854775809", "int64"),
        ("[1, 18446744073709551616]", "uint64"),
        ("[256]", "uint8"),
        ("[-1]", "uint32"),
        ("99999999999999999999", None),
        ("[1e39]", "float32"),
        ("[70000]", "float16"),
        ("[1.5]", "int8"),
    ):
        cases.append((text, "fit|outside|range|fractional", dtype))
    malformed = ["", "   ", "[", "]", "[1,,2]", "[1 2]", "'open", '"x"', "0x10", "1_000", "tru", "[[1],[1,2]]"]
    malformed += ["[1, 'a']", "1..2", "--1", "+-1", "1e", "e5", "[1]]", "'\\q'", "\x00", "\u202e1", "1\u200b"]
    for text in malformed:
        cases.append((text, "", None))
    return cases


CORPUS = _corpus()


def test_corpus_size() -> None:
    assert len(CORPUS) >= 150, len(CORPUS)


@pytest.mark.parametrize("text,fragment,dtype", CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_hostile_literal_is_refused_clearly(text: str, fragment: str, dtype: str | None) -> None:
    with pytest.raises(LiteralError) as info:
        if dtype is None:
            parse_literal(text)
            parse_array(text)
        else:
            parse_array(text, np.dtype(dtype))
    message = str(info.value)
    assert info.value.message and "Traceback" not in message
    assert not fragment or any(part in message for part in fragment.split("|")), message
    assert 0 <= info.value.position <= len(text)


def test_explicit_infinity_and_tiny_numbers_still_parse() -> None:
    assert parse_literal("[inf, -Infinity]") == [math.inf, -math.inf]
    assert parse_literal("1e-99999") == 0.0
    assert parse_literal("1" * 400) == int("1" * 400)


_numberish = st.sampled_from(list("0123456789.eE+-[], ") + list(FOREIGN_DIGITS[:12]) + ["inf", "nan", "'a'"])


def _check_result(text: str) -> None:
    for parse in (parse_literal, parse_array):
        try:
            value = parse(text)
        except LiteralError as exc:
            assert 0 <= exc.position <= len(text)
            assert exc.describe()
            continue
        numbers = np.asarray(value, dtype=object).reshape(-1) if isinstance(value, list | np.ndarray) else [value]
        lowered = text.lower()
        for number in numbers:
            if isinstance(number, float | np.floating) and not math.isfinite(float(number)):
                assert ("inf" in lowered) or ("nan" in lowered), (text, value)
        if "'" not in text:
            assert all(char.isascii() for char in text if char.isdigit()), (text, value)


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_numberish, max_size=40).map("".join))
def test_fuzz_numbers_never_escape_or_overflow(text: str) -> None:
    _check_result(text)


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_fuzz_any_text(text: str) -> None:
    _check_result(text)
