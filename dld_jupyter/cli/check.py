"""`dld check MODEL`: the designer's type check list on the command line.

Runs the document checks (onnx.checker and strict shape inference on a weightless skeleton, names, unconnected
mandatory inputs, dangling nodes), then checks the file as written for what the editable model hides (duplicate
initializers or local functions, conflicting value_info, bad sparse indices: the full onnx.checker) and, with
--polygraphy, the Polygraphy linter in a child process. Prints one
line per diagnostic; exit 0 when there is no error, 1 when there is one, 2 when the file cannot be opened.
"""

from __future__ import annotations

import argparse
import json
import pathlib
from typing import Any

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo

ICONS = {"error": "✖", "warning": "⚠", "info": "ℹ"}


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "check", __doc__, func=run,
                      help="type-check an ONNX model (checker, shape inference, structure, optional Polygraphy lint)")
    parser.add_argument("model", help="path of the .onnx file")
    parser.add_argument("--polygraphy", action="store_true", help="also run `polygraphy check lint` (slower)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the Polygraphy lint")
    parser.add_argument("--json", action="store_true", help="print the diagnostics as a JSON list")


def run(args: argparse.Namespace) -> int:
    """Check the model; a bad file is exit 2 with its message (an unexpected error: cli.errors' guard)."""
    from dld_jupyter.document import Document, DocumentError
    from dld_jupyter.document.checks.proto_checks import check_proto
    from dld_jupyter.document.files import io

    try:
        checked = io.read_checked(args.model)
        document = Document(io.build(checked), pathlib.Path(args.model))
    except DocumentError as error:
        echo(f"dld check: {error}")
        return int(ExitCode.BAD_INPUT)
    diagnostics = list(document.check())
    if not any(d.severity == "error" for d in diagnostics):  # what the ir model hid (duplicates, sparse, ...)
        names = {node.name: node.id for node in document.nodes() if node.name}
        diagnostics.extend(check_proto(checked.proto, names))
    if args.polygraphy:
        from dld_jupyter.document.checks.lint import start_polygraphy_lint

        names = {node.name: node.id for node in document.nodes() if node.name}
        lint = start_polygraphy_lint(args.model, names)
        try:
            diagnostics.extend(lint.result(timeout=args.timeout))
        except TimeoutError:
            lint.cancel()
            echo(f"dld check: Polygraphy lint did not finish within {args.timeout:.0f} s (use --timeout)")
            return int(ExitCode.FAILED)
    names_by_id = {node.id: node.name for node in document.nodes()}
    if args.json:
        rows = [
            {
                "severity": d.severity,
                "message": d.message,
                "node": names_by_id.get(d.node_id or ""),
                "fix_hint": d.fix_hint,
                "source": d.source,
            }
            for d in diagnostics
        ]
        echo(json.dumps(rows, indent=2))
    else:
        for d in diagnostics:
            where = f" [{names_by_id.get(d.node_id, d.node_id)}]" if d.node_id else ""
            hint = f"\n    fix: {d.fix_hint}" if d.fix_hint else ""
            echo(f"{ICONS.get(d.severity, '?')} {d.severity}{where}: {d.message}{hint}")
        errors = sum(d.severity == "error" for d in diagnostics)
        warnings = sum(d.severity == "warning" for d in diagnostics)
        echo(f"{document.name}: {errors} error(s), {warnings} warning(s), {len(document.nodes())} nodes")
    return int(ExitCode.FAILED if any(d.severity == "error" for d in diagnostics) else ExitCode.OK)
