"""`dld diverge REF CAND`: the first ONNX node where CAND's values part from REF's, and the per-node table.

Both models run on the same inputs (--input NAME=FILE, a .npy or a TensorProto .pb; random ones otherwise) with
graph optimizations off, each on its provider; nodes pair through the structural diff (a renamed or converted copy
still pairs) and every paired output is compared in windows of --window tensors, so memory holds one model's
weights and two windows of activations (a window: at most --window tensors and --window-mb of them).
Metrics: max_abs, max_rel, cosine, sqnr (dB); --metric and --tolerance
decide what is past (above for max_abs/max_rel, below for cosine/sqnr; a new NaN/Inf always is).
--node-data writes Model Explorer node data (GraphNodeData JSON, keyed by the ids its ONNX adapter gives the nodes).
It runs in the activity worker (a crash of ONNX Runtime ends the run, Ctrl-C cancels it and removes its copies).
Progress goes to stderr, one line per window (windows done / total and the window's first node), so stdout holds
only the table or the --json document.
Exit 0 when no node is past the tolerance, 1 when one is or a run failed, 2 for bad input, 3 when a provider is
not installed.
"""

from __future__ import annotations

import argparse
import json
import pathlib
from typing import Any

import numpy as np

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files, require_folder
from dld_jupyter.cli.verbs import add_verb, count, finite, positive, unique_names
from dld_jupyter.formats.terminal_text import echo

TABLE_ROWS = 20  # rows of the text table: the worst, by the run's metric


def _input(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=FILE (a .npy or TensorProto .pb file)")
    return name, path


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "diverge", __doc__, func=run,
                      help="first diverging ONNX node between two models (FP16, another provider, an edit)")
    parser.add_argument("reference", help="path of the reference .onnx file")
    parser.add_argument("candidate", help="path of the candidate .onnx file")
    parser.add_argument("--reference-provider", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--candidate-provider", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--input", action="append", type=_input, default=[], metavar="NAME=FILE",
                        help="an input value (.npy or .pb); repeat per input")
    parser.add_argument("--metric", default="max_abs", choices=["max_abs", "max_rel", "cosine", "sqnr"])
    parser.add_argument("--tolerance", type=finite, default=None,
                        help="threshold of --metric (defaults: max_abs 1e-3, max_rel 1e-2, cosine 0.9999, sqnr 40)")
    parser.add_argument("--window", type=count, default=64, help="tensors compared per session (memory vs time)")
    parser.add_argument("--window-mb", type=positive, default=256.0,
                        help="MB of activations per session and side, at most (shape inference sizes them)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (inputs not given)")
    parser.add_argument("--node-data", metavar="OUT.json", help="write Model Explorer node data of the metric")
    parser.add_argument("--json", action="store_true", help="print the whole table as JSON")
    declare_files(parser, models=["reference", "candidate"], inputs=["--input"], outputs=["--node-data"])


def _read_input(path: str) -> np.ndarray:
    from dld_jupyter.activities.errors import SpecError
    from dld_jupyter.document.files.npy_input import read_npy

    if path.endswith(".npy"):
        return read_npy(path)
    import onnx
    from onnx import numpy_helper

    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(pathlib.Path(path).read_bytes())
        return numpy_helper.to_array(tensor)
    except Exception as error:
        raise SpecError(f"--input {path}: neither a .npy file nor a readable TensorProto ({error})") from error


def _progress(progress: Any) -> None:
    echo(f"dld diverge: {progress.fraction:4.0%} {progress.phase}", err=True)


def diverge_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """`diverge`'s arguments from the command line (the input files read)."""
    return {"reference": args.reference, "candidate": args.candidate,
            "inputs": {name: _read_input(path) for name, path in unique_names(args.input, "--input").items()} or None,
            "metric": args.metric,
            "tolerance": args.tolerance, "reference_provider": args.reference_provider,
            "candidate_provider": args.candidate_provider, "window": args.window, "seed": args.seed,
            "window_bytes": int(args.window_mb * (1 << 20))}


def run(args: argparse.Namespace) -> int:
    if args.node_data:
        require_folder(args.node_data, "--node-data")  # before the run, not after it
    from dld_jupyter.frontdoor.compare_runs import run_divergence

    options = diverge_arguments(args)
    result = run_divergence(options.pop("reference"), options.pop("candidate"), on_progress=_progress,
                            node_data=args.node_data, **options)  # the worker writes the node data
    if args.json:
        echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        echo(result.headline())
        echo(f"{'node':<48} {'op':<14} {'max_abs':>10} {'max_rel':>10} {'cosine':>10} {'sqnr dB':>8}  nan/inf")
        for row in result.table(sort_by=args.metric, descending=args.metric not in ("cosine", "sqnr"))[:TABLE_ROWS]:
            m = row.metrics
            echo(f"{row.node[-48:]:<48} {row.op_type[:14]:<14} {m.max_abs:>10.3g} {m.max_rel:>10.3g} "
                  f"{m.cosine:>10.6f} {m.sqnr:>8.1f}  {m.nan}/{m.inf}" + ("  past" if row.over else ""))
    return int(ExitCode.FAILED if result.first is not None else ExitCode.OK)
