"""How a verb module adds its parser to `dld`: one call, so every `dld VERB --help` reads the same way.

Why: each verb module (check, convert-fp16, diff, diverge, export-engine, ...) wrote the same `add_parser` call —
its docstring as the description, the raw formatter that keeps the docstring's lines, then `set_defaults(func=...)`
— eleven times over. `add_verb` is that call; `main.VERBS` lists the modules and calls their `register(subparsers)`.
"""

from __future__ import annotations

import argparse
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
