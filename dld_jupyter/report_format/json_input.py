"""The one way the report layer reads JSON it did not write: report files, trtexec outputs, ONNX Runtime traces.

Why a helper of its own: `json.loads` recurses once per nesting level (a file of 100,000 `[` ends in a
`RecursionError` traceback, and every walk over the decoded data recurses the same way), turns `1e400` into
`inf` that no report may hold, and accepts integers of any length that later overflow `float()`. Every reader
goes through `read_json` / `parse_json`, which refuse all of that with a `ReportError` naming the file, so no
parser of ours meets such data:
- the file must be a regular file of at most `MAX_BYTES`, in UTF-8;
- arrays and objects nest at most `MAX_DEPTH` levels, checked on the text before decoding (string contents are
  skipped, so brackets inside layer names do not count);
- `NaN`, `Infinity` and `-Infinity` are refused (they are not JSON), so are numbers beyond the float64 range
  and integers of more than `MAX_INT_DIGITS` digits;
- strings must be valid Unicode (a lone surrogate such as `"\\ud800"` cannot be printed or saved).

The number checks cost a Python call per number, so they run only when a cheap scan of the text finds a number
that could break them (a long digit run or a three-digit exponent): a 5,000-layer report decodes at C speed.
The scans are C string operations too (split, translate, `in`): a regular expression over every digit cost more
than the decoding itself.
"""

from __future__ import annotations

import json
import math
import os
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.errors import ReportError

MAX_BYTES = 1 << 30  # the largest JSON file read (an ONNX Runtime trace of a long run can reach hundreds of MB)
MAX_DEPTH = 64  # our formats nest at most ~6 levels
MAX_INT_DIGITS = 20  # uint64 has 20 digits: no field of ours needs more

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_ALL_NINES = bytes.maketrans(b"012345678", b"999999999")
# With every digit a 9: a run longer than MAX_INT_DIGITS, or an exponent of three digits or more.
_SUSPECT = (b"9" * (MAX_INT_DIGITS + 1), b"e999", b"E999", b"e+999", b"E+999")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB]")


class _Refused(ValueError):
    """Raised from inside json.loads hooks; turned into a ReportError naming the file."""


def _constant(name: str) -> None:
    raise _Refused(f"{name} is not JSON (the format has no NaN or Infinity)")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"the integer {text[:12]}… has {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else text[:20] + "…"
        raise _Refused(f"the number {shown} is beyond the float64 range")
    return value


def _outside_strings(text: str) -> str:
    """`text` without the contents of its JSON strings (split on quotes when no quote is escaped: C speed)."""
    if '\\"' not in text:
        return "".join(text.split('"')[::2])
    return _STRING.sub("", text)


def _bracket_depth(bare: bytes) -> int:
    return max(accumulate(map(_STEP.__getitem__, bare.translate(None, _NOT_BRACKET))), default=0)


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text, string contents not counted."""
    return _bracket_depth(_outside_strings(text).encode("utf-8", "surrogatepass"))


def parse_json(text: str, source: str, what: str = "file") -> Any:
    """Decode JSON `text` read from `source` within the limits above; ReportError (exit 2 in the CLI) otherwise."""
    bare = _outside_strings(text).encode("utf-8", "surrogatepass")
    depth = _bracket_depth(bare)
    if depth > MAX_DEPTH:
        raise ReportError(
            source,
            f"the {what} nests arrays and objects more than {MAX_DEPTH} levels deep ({depth} found).",
            "pass the file the tool wrote; no report, trtexec or ONNX Runtime file nests that deep.",
        )
    nines = bare.translate(_ALL_NINES)
    precise = any(marker in nines for marker in _SUSPECT)
    try:
        if precise:
            data = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
        else:
            data = json.loads(text, parse_constant=_constant)
    except _Refused as exc:
        raise ReportError(
            source, f"the {what} holds a number JSON reports cannot hold: {exc}.", "write plain finite numbers."
        ) from exc
    except json.JSONDecodeError as exc:
        raise ReportError(
            source,
            f"the {what} is not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}.",
            "was the file cut short or edited by hand? Pass the file as the tool wrote it.",
        ) from exc
    except (ValueError, RecursionError) as exc:  # e.g. Python's limit on int digits; recursion: see the depth check
        why = f"the {what} is not usable JSON ({exc})."
        raise ReportError(source, why, "pass the file as the tool wrote it.") from exc
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ReportError(
                source,
                f"the {what} holds a lone UTF-16 surrogate escape (\\ud800-\\udfff) in a string.",
                "strings must be valid Unicode; fix the name that holds it.",
            ) from exc
    return data


def read_text(path: str | os.PathLike[str], what: str = "file", missing: str = "") -> str:
    """The UTF-8 text of the regular file at `path`, at most MAX_BYTES; ReportError saying what is wrong.

    `missing` is added to the "no such file" message (where the file usually comes from).
    """
    file = Path(path)
    if not file.exists():
        raise ReportError(f"{file}: no such {what} file{f' ({missing})' if missing else ''}. Check the path.")
    if file.is_dir():
        raise ReportError(f"{file}: is a folder, not a {what} file.")
    if not file.is_file():
        raise ReportError(f"{file}: is not a regular file (a device, pipe or socket); pass the {what} file itself.")
    try:
        with open(file, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ReportError(f"{file}: cannot be read ({exc.strerror}).") from exc
    if len(raw) > MAX_BYTES:
        raise ReportError(str(file), f"the {what} is larger than {MAX_BYTES >> 20} MiB.", "pass a smaller file.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReportError(
            f"{file}: not a text file ({exc.reason} at byte {exc.start}); a {what} is UTF-8 JSON."
        ) from exc


def read_json(path: str | os.PathLike[str], what: str = "file", missing: str = "") -> Any:
    """Read and decode the JSON file at `path` (see the module docstring for what is refused)."""
    return parse_json(read_text(path, what, missing), str(Path(path)), what)
