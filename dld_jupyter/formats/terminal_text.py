"""Where text becomes terminal output: the one place a name, a path or a message is made harmless before `dld`
prints it, like `html_text.py` for HTML.

Why: a terminal runs the escape sequences it is sent. A TensorRT layer named `\\x1b]0;owned\\x07\\x1b[2J` cleared
the screen and retitled the window through `dld engine show`, and a remote target's log lines and a sweep
manifest's reasons reached the terminal the same way (issue 36); `dld report` had its own filter, the other verbs
none. Every line the command line prints goes through `echo` (tests/cli/test_terminal_text.py fails on a `print`
or a `sys.stdout.write` anywhere else in `dld_jupyter/cli/`), which shows control characters (C0 but newline and
tab, DEL, C1, the Unicode line/paragraph separators, bidi overrides and isolates) as U+FFFD.

Standard library only (the `formats` layer).
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

__all__ = ["echo", "terminal_text"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
REPLACEMENT = "\ufffd"


def terminal_text(value: object) -> str:
    """`str(value)` with control characters (ANSI escapes, bidi overrides, ...) shown as U+FFFD; newlines and
    tabs kept."""
    return _CONTROL.sub(REPLACEMENT, str(value))


def echo(*values: object, sep: str = " ", end: str = "\n", err: bool = False, file: TextIO | None = None) -> None:
    """`print` for the command line: the values made terminal text, to stdout (stderr with `err`), flushed;
    `sep` and `end` are the caller's own text (`end="\\r"` lets the next line overwrite a progress line)."""
    stream = file if file is not None else sys.stderr if err else sys.stdout
    stream.write(sep.join(terminal_text(value) for value in values) + end)
    stream.flush()
