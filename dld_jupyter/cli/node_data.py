"""`dld report node-data REPORT -o OUT.json`: a report's heat as Model Explorer node data.

Each node of the profiled model gets the median time (ms) of the layers it belongs to, or its share (%) of the layer
sum (`--metric share`), keyed by the ids Model Explorer's ONNX adapter gives the nodes (unnamed nodes included), so
"Add per-node data" there colours the graph the way the canvas heat does. The report's own model is read, or
`--model` when the report's has moved. The diff and the divergence write theirs with `dld diff/diverge --node-data`.
"""

from __future__ import annotations

import argparse
from typing import Any

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.formats.terminal_text import echo


def register(verbs: Any) -> None:
    """The `node-data` verb under `dld report` (verbs: report's subparsers)."""
    sub = verbs.add_parser("node-data", help="write the heat as Model Explorer node data (per-node time or share)",
                           description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("report", metavar="REPORT")
    sub.add_argument("-o", "--output", required=True, metavar="OUT.json", help="node-data file to write")
    sub.add_argument("--model", metavar="MODEL.onnx", help="the profiled model (default: the one the report names)")
    sub.add_argument("--metric", choices=("time", "share"), default="time",
                     help="time: median ms of the node's layers (default); share: % of the layer sum")
    sub.set_defaults(func=run)
    declare_files(sub, inputs={"report": "report"}, models=["--model"], outputs={"--output": "output (-o)"})


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.model_compare import write_node_data
    from dld_jupyter.reports.heat_node_data import heat_node_data, report_model
    from dld_jupyter.reports.open import open_report

    report = open_report(args.report)
    data = heat_node_data(report, report_model(report, args.model), args.metric)
    echo(f"wrote {write_node_data(data, args.output)} ({len(data['results'])} nodes, {args.metric})")
    return int(ExitCode.OK)
