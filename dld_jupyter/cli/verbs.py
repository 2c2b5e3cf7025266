"""How a verb module adds its parser to `dld`: one call, so every `dld VERB --help` reads the same way; and the
argument types the verbs share (counts, finite and positive numbers, NAME=VALUE options given once).

Why: each verb module (check, convert-fp16, diff, diverge, export-engine, ...) wrote the same `add_parser` call —
its docstring as the description, the raw formatter that keeps the docstring's lines, then `set_defaults(func=...)`
— eleven times over. `add_verb` is that call; `main.VERBS` lists the modules and calls their `register(subparsers)`.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace], int]


def add_verb(
    subparsers: Any, name: str, doc: str | None, help: str, func: Handler | None = None
) -> argparse.ArgumentParser:
    """The parser of `dld NAME`: `help` in `dld --help`, the module docstring `doc` as written in `dld NAME --help`;
    `func(args) -> exit code` runs it (None for a verb whose actions are sub-parsers that set their own)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    if func is not None:
        parser.set_defaults(func=func)
    return parser


def count(text: str) -> int:
    """An argparse type: a whole number of rows or layers, 1 or more (`--rows -1` printed nonsense)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: give 1 or more")
    return value


def finite(text: str) -> float:
    """An argparse type: a finite number (nan and inf are refused: no comparison with them means anything)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text}: give a finite number")
    return value


def positive(text: str) -> float:
    """An argparse type: a finite number above 0 (a size, an amount of memory)."""
    value = finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text}: give a number above 0")
    return value


def unique_names(pairs: list[tuple[str, str]], option: str) -> dict[str, str]:
    """NAME=VALUE options as a mapping; SpecError (exit 2) when a NAME is given twice (the last one silently won)."""
    from dld_jupyter.activities.errors import SpecError

    named: dict[str, str] = {}
    for name, value in pairs:
        if name in named:
            raise SpecError(f"{option} {name}= is given twice ({named[name]} and {value}); give each input once")
        named[name] = value
    return named
