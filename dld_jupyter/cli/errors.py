"""The one table from error classes to exit codes, and the guard every verb of `dld` and `dld-prof` runs under.

Each layer has one error type saying what went wrong, why and how to fix it (`DocumentError`, `ReportError`, the
activity errors); for the CLI they are bad input (exit 2) or an unavailable backend (3) and are printed as one
message, never as a traceback. Anything else that escapes a verb is a bug of ours: a short traceback and a line
asking to report it, exit 1. Environment failures (a full disk, out of memory) are neither: a message, exit 1.

The table names classes by module and name instead of importing them, so `dld report` does not load onnx (the
document layer) just to know its error class: an error of a layer that was never imported cannot be raised.
"""

from __future__ import annotations

import argparse
import json
import traceback
from collections.abc import Callable
from typing import TypeVar

from dld_jupyter._version import __version__
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.formats.terminal_text import echo

EXIT_CODES: dict[tuple[str, str], ExitCode] = {
    ("dld_jupyter.document.model.errors", "DocumentError"): ExitCode.BAD_INPUT,
    ("dld_jupyter.document.edits.literals", "LiteralError"): ExitCode.BAD_INPUT,
    ("dld_jupyter.report_format.errors", "ReportError"): ExitCode.BAD_INPUT,
    ("dld_jupyter.formats.output_paths", "OutputPathError"): ExitCode.BAD_INPUT,
    ("dld_jupyter.activities.errors", "SpecError"): ExitCode.BAD_INPUT,
    ("dld_jupyter.activities.errors", "UnavailableError"): ExitCode.UNAVAILABLE,
    ("dld_jupyter.activities.errors", "RunFailed"): ExitCode.FAILED,
    ("dld_jupyter.activities.errors", "ActivityError"): ExitCode.FAILED,
}
REPORT_BUGS = "the dld_jupyter issue tracker"
TRACEBACK_FRAMES = 6  # the innermost frames: where it broke, without the argparse and dispatch frames
A = TypeVar("A")


def exit_code_for(error: BaseException) -> ExitCode | None:
    """The exit code of a known error class (its own or a base class's entry in EXIT_CODES); None for a bug."""
    for cls in type(error).__mro__:
        code = EXIT_CODES.get((cls.__module__, cls.__qualname__))
        if code is not None:
            return code
    return None


def _refused_outputs(prog: str, args: argparse.Namespace) -> int | None:
    """Exit 2 when an output the verb declared would replace one of its inputs (cli/file_options.py); the
    message as the verb's --json object (the keys of both the profile and the batch verbs' statuses) or a line."""
    from dld_jupyter.cli.file_options import check_file_options
    from dld_jupyter.formats.output_paths import OutputPathError

    try:
        check_file_options(args)
    except OutputPathError as error:
        if getattr(args, "json", False):
            echo(json.dumps({"ok": False, "status": "failed", "error": str(error), "error_kind": "bad_input",
                              "exit_code": int(ExitCode.BAD_INPUT)}, indent=2))
        else:
            echo(f"{prog}: error: {error}", err=True)
        return int(ExitCode.BAD_INPUT)
    return None


def run_guarded(prog: str, func: Callable[[A], int], args: A) -> int:
    """`func(args)` with every exception turned into a message and an exit code (see the module docstring)."""
    if isinstance(args, argparse.Namespace) and (refused := _refused_outputs(prog, args)) is not None:
        return refused
    try:
        return int(func(args))
    except KeyboardInterrupt:
        echo(f"{prog}: interrupted", err=True)
        return 130
    except Exception as error:
        code = exit_code_for(error)
        if code is not None:
            echo(f"{prog}: error: {error}", err=True)
            return int(code)
        if isinstance(error, OSError | MemoryError):  # the machine, not the input and not our code
            echo(f"{prog}: error: {type(error).__name__}: {error}", err=True)
            return int(ExitCode.FAILED)
        echo("".join(traceback.format_exception(type(error), error, error.__traceback__, limit=-TRACEBACK_FRAMES)),
             end="", err=True)
        echo(f"{prog}: internal error ({type(error).__name__}): this is a bug in dld_jupyter {__version__}. "
             f"Please report it at {REPORT_BUGS}, with the command and the lines above.", err=True)
        return int(ExitCode.FAILED)
