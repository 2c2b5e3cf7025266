"""`dld`: the command-line front door. One module per verb in this folder, each with `register(subparsers)`.

Exit codes are shared by every verb (see `ExitCode`) so scripts can tell bad input from a missing backend; every
verb runs under `errors.run_guarded`, the one mapping of error classes to exit codes (no traceback for bad input).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dld_jupyter._version import __version__
from dld_jupyter.cli.errors import run_guarded
from dld_jupyter.cli.exit_codes import ExitCode

# Verb modules, in the order `dld --help` lists them. Each defines register(subparsers) and sets
# `func(args) -> int` on its parser with set_defaults(func=...).
VERBS: tuple[str, ...] = ("profile", "export-engine", "engine", "check", "report")

VERBS += ("convert-fp16", "sanitize", "convert-tensors")  # batch modifications (issue 20)
VERBS += ("extract-subgraph",)  # subgraph documents (issue 19)
VERBS += ("diff", "diverge")  # comparing two models (issue 30)
VERBS += ("targets", "doctor")  # remote targets over SSH, what runs where (issue 27)
VERBS += ("sweep",)  # grids of profiles (issue 28)
VERBS += ("run",)  # one run on real inputs, outputs and inner values saved (issue 29)
VERBS += ("analyze",)  # the analysis debugger: stops at breakpoints, values dumped (issue 37)
VERBS += ("operators",)  # the layer documentation (issue 41)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dld",
        description="Design, check and profile ONNX models (dld_jupyter command line).",
    )
    parser.add_argument("--version", action="version", version=f"dld_jupyter {__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb in VERBS:
        importlib.import_module(f"dld_jupyter.cli.{verb.replace('-', '_')}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return int(ExitCode.BAD_INPUT)
    prog = " ".join(["dld", args.verb, *([args.command] if getattr(args, "command", None) else [])])
    return run_guarded(prog, args.func, args)


if __name__ == "__main__":
    sys.exit(main())
