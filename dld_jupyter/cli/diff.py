"""`dld diff A B`: what changed from model A to model B, nodes paired by structure (names are only a hint).

Lists the removed, added and changed nodes (op, attributes, weights by dtype, shape and content, connections,
subgraphs), the local functions added, removed or changed, and the changes per name-scope group. A copy with every
node renamed shows no change. Weights are compared in bounded memory, each read from its own model's folder.
`--node-data OUT.json` also writes B's nodes as Model Explorer node data (keyed by the ids its ONNX adapter gives
them): 2 added, 1 changed, 0 the same, each coloured as the canvas diff colours it.
Exit 0 when compared (with or without changes), 2 when a model cannot be opened.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo

SCOPE_DEPTH = 2  # scope groups printed in the text summary: the top two levels


def register(subparsers: Any) -> None:
    parser = add_verb(
        subparsers, "diff", __doc__, "structural diff of two ONNX models (renamed nodes pair by structure)", func=run
    )
    parser.add_argument("a", help="path of the first (old) .onnx file")
    parser.add_argument("b", help="path of the second (new) .onnx file")
    parser.add_argument("--json", action="store_true", help="print the whole diff as JSON")
    parser.add_argument("--node-data", metavar="OUT.json",
                        help="also write B's nodes as Model Explorer node data: 2 added, 1 changed, 0 the same")
    declare_files(parser, models=["a", "b"], outputs=["--node-data"])


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.model_compare import diff, diff_node_data, write_node_data
    from dld_jupyter.model_compare.structural_diff import as_model

    model_b = as_model(args.b)
    result = diff(args.a, model_b)
    if args.node_data:
        wrote = write_node_data(diff_node_data(result, model_b.graph), args.node_data)
        echo(f"wrote {wrote} (Model Explorer node data of {args.b})", err=True)
    if args.json:
        echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        return int(ExitCode.OK)
    echo(result.headline())
    graphs = [("", result.graph), *((f"function {k}: ", v) for k, v in result.functions.items())]
    for prefix, graph in graphs:
        for ref in graph.removed:
            echo(f"- {prefix}{ref.label} ({ref.op_type})")
        for ref in graph.added:
            echo(f"+ {prefix}{ref.label} ({ref.op_type})")
        for node in graph.changed:
            name = node.b.label if node.a.label == node.b.label else f"{node.a.label} → {node.b.label}"
            echo(f"~ {prefix}{name} ({node.b.op_type})")
            for change in node.changes:
                echo(f"    {change.what}")
        for line in graph.io + graph.parameters:
            echo(f"~ {prefix}{line}")
    for line in result.model:
        echo(f"~ {line}")
    groups = {k: v for k, v in result.graph.by_scope().items() if k and k.count("/") < SCOPE_DEPTH}
    if groups:
        echo("by scope:")
        for name, counts in sorted(groups.items()):
            echo(f"  /{name}: " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))
    return int(ExitCode.OK)
