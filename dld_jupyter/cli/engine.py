"""`dld engine show PATH [--json]`: the layers of a TensorRT engine, from its layer information (`.trt.json` from
`dld export-engine --metadata`, or `trtexec --profilingVerbosity=detailed --exportLayerInfo`): each layer's type,
precision, tactic and the ONNX nodes it fuses, then the engine's inputs and outputs.
Exit codes: 0 shown, 2 the file is not engine layer information.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo
from dld_jupyter.report_format.engine_graph import EngineGraph, EngineGraphError, load_engine_graph


def graph_json(graph: EngineGraph) -> dict[str, Any]:
    return {
        "source": graph.source,
        "inputs": graph.inputs,
        "outputs": graph.outputs,
        "layers": [dataclasses.asdict(layer) for layer in graph.layers],
        "tensors": {name: dataclasses.asdict(t) for name, t in graph.tensors.items()},
        "links": [dataclasses.asdict(link) for link in graph.links],
    }


def graph_text(graph: EngineGraph) -> str:
    precisions: dict[str, int] = {}
    for layer in graph.layers:
        precisions[layer.precision] = precisions.get(layer.precision, 0) + 1
    mix = ", ".join(f"{p} {n}" for p, n in sorted(precisions.items(), key=lambda kv: -kv[1]))
    lines = [
        f"Engine:    {graph.source}",
        f"Layers:    {len(graph.layers)} ({mix})",
        f"Inputs:    {', '.join(_io(graph, n) for n in graph.inputs)}",
        f"Outputs:   {', '.join(_io(graph, n) for n in graph.outputs)}",
        "",
        f"  {'#':>4}  {'precision':<9}  {'type':<18} name -> ONNX nodes",
    ]
    for layer in graph.layers:
        nodes = ", ".join(layer.onnx_nodes) if layer.onnx_nodes else "-"
        mark = " (overhead)" if layer.overhead else ""
        lines.append(f"  {layer.index:>4}  {layer.precision:<9}  {layer.type:<18} {layer.name}{mark}")
        lines.append(f"  {'':>4}  {'':<9}  {'':<18}   -> {nodes}")
        if layer.tactic:
            lines.append(f"  {'':>4}  {'':<9}  {'':<18}   tactic {layer.tactic}")
    return "\n".join(lines)


def _io(graph: EngineGraph, name: str) -> str:
    tensor = graph.tensors.get(name)
    if tensor is None:
        return name
    return f"{name} [{'x'.join(str(d) for d in tensor.dims)}] {tensor.precision}"


def _show(args: argparse.Namespace) -> int:
    try:
        graph = load_engine_graph(args.path)
    except EngineGraphError as error:
        if args.json:
            echo(json.dumps({"status": "failed", "error": str(error), "error_kind": "bad_input", "exit_code": 2}))
        else:
            echo(f"dld engine show: {error}", err=True)
        return int(ExitCode.BAD_INPUT)
    echo(json.dumps(graph_json(graph), indent=2) if args.json else graph_text(graph))
    return int(ExitCode.OK)


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "engine", __doc__, "inspect a TensorRT engine's layer information")
    verbs = parser.add_subparsers(dest="engine_verb", metavar="ACTION", required=True)
    show = verbs.add_parser("show", help="print the engine's layers, precisions and the ONNX nodes they fuse")
    show.add_argument("path", help=".trt.json or trtexec --exportLayerInfo file")
    show.add_argument("--json", action="store_true", help="the whole graph (layers, tensors, links) as JSON")
    show.set_defaults(func=_show)
