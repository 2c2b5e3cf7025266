"""`dld operators [NAME]`: the layer documentation on the command line (JupyterLab's Help ▸ ONNX Operator
Documentation reads the same data, document/operators/operator_docs.py).

Without NAME: every operator the installed onnx and onnxruntime define, one line each (name, domain, newest
version, category, summary); --search keeps those whose name, domain or category contains a text. With NAME:
that operator's reference (description, inputs, outputs, attributes with types and defaults, type constraints)
at its newest version, or as in force at --opset N (the newest version not newer than N); --domain picks a
domain other than ai.onnx (com.microsoft, ai.onnx.ml, ...). --json prints the data itself. Exit 2 for an
operator, or an opset, that does not exist.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo

if TYPE_CHECKING:
    from dld_jupyter.document.operators.operator_docs import OperatorReference, VersionDoc


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "operators", __doc__, func=run,
                      help="the ONNX operator documentation: list every operator, or one operator's reference")
    parser.add_argument("name", nargs="?", help="an operator (case-sensitive, as in models: Conv, LayerNormalization)")
    parser.add_argument("--domain", default="ai.onnx", help="the operator's domain (default ai.onnx)")
    parser.add_argument("--opset", type=int, help="show the operator as this opset of its domain defines it")
    parser.add_argument("--search", default="", help="list only operators whose name, domain or category has this")
    parser.add_argument("--json", action="store_true", help="print the data as JSON")


def _reference_lines(reference: OperatorReference, version: VersionDoc) -> list[str]:
    others = ", ".join(str(v["since_version"]) for v in reference["versions"])
    lines = [f"{reference['name']} ({reference['domain']}, {reference['category']}), version "
             f"{version['since_version']}{' (deprecated)' if version['deprecated'] else ''}; versions: {others}",
             "", version["doc"], ""]
    for title, params in (("Inputs", version["inputs"]), ("Outputs", version["outputs"])):
        lines.append(title)
        for p in params:
            flags = "".join(f", {f}" for f in ("optional", "variadic") if p[f])
            lines.append(f"  {p['name']} ({p['type']}{flags}): {' '.join(p['doc'].split())}")
    lines.append("Attributes")
    for a in version["attributes"]:
        how = "required" if a["required"] else f"default {a['default']}" if a["default"] is not None else "optional"
        lines.append(f"  {a['name']} ({a['type'].lower()}, {how}): {' '.join(a['doc'].split())}")
    lines.append("Type constraints")
    lines.extend(f"  {c['name']}: {', '.join(c['types'])} — {c['doc']}" for c in version["type_constraints"])
    return lines


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.document.operators.operator_docs import UnknownOperator, operator_index, operator_reference

    if not args.name:
        needle = args.search.lower()
        found = [e for e in operator_index() if needle in f"{e['name']} {e['domain']} {e['category']}".lower()]
        if args.json:
            echo(json.dumps(found, indent=2))
        for e in [] if args.json else found:
            echo(f"{e['name']:<36} {e['domain']:<20} {e['since_version']:>3}  {e['category']:<24} {e['summary']}")
        return 0
    reference = operator_reference(args.name, args.domain)  # an unknown one: DocumentError, exit 2 with the fix
    versions = reference["versions"]
    chosen = versions[0] if args.opset is None else next(
        (v for v in versions if v["since_version"] <= args.opset), None)  # newest first
    if chosen is None:
        raise UnknownOperator(f"dld operators {args.name}", f"it did not exist yet in opset {args.opset}.",
                              f"Give an opset of {versions[-1]['since_version']} or later.")
    if args.json:
        echo(json.dumps({**reference, "versions": [chosen]}, indent=2))
    else:
        echo("\n".join(_reference_lines(reference, chosen)))
    return 0
