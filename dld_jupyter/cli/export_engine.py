"""`dld export-engine MODEL -o MODEL.engine [options]`: build a TensorRT engine from an ONNX model (seed 000
"Exporting a TensorRT Engine"), with the optimization profiles and layer precisions stored in the model.

The build runs in a worker process. `--dry-run [--json]` prints every resolved setting and the equivalent trtexec
command line instead. Exit codes: 0 done, 1 the build failed, 2 bad input, 3 TensorRT unavailable here.

An export writes the engine and, with `--metadata`, its layer information; no report, since a build measures
nothing. `--report` is refused with that reason: profile the engine for a measured report.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.export_engine import export_spec
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.profile import exit_code, outcome, run_spec
from dld_jupyter.cli.trt_options import add_trt_options, print_dry_run, settings_from_args
from dld_jupyter.cli.verbs import add_verb
from dld_jupyter.formats.terminal_text import echo

NO_REPORT = (
    "--report: an engine export measures nothing, so it writes no report (the engine's layers, precisions and fused"
    " ONNX nodes are in --metadata); for a measured report profile the engine: dld profile MODEL --backend tensorrt"
    " --prebuilt-engine ENGINE. Nothing was written."
)


def spec_from_args(args: argparse.Namespace) -> TrtBuildSpec:
    if args.report is not None:
        raise SpecError(NO_REPORT)
    return export_spec(args.model, args.output, metadata=args.metadata, settings=settings_from_args(args))


def _run(args: argparse.Namespace) -> int:
    try:
        spec = spec_from_args(args)
    except SpecError as error:
        if args.json:
            echo(json.dumps({"status": "failed", "error": str(error), "error_kind": "bad_input", "exit_code": 2}))
        else:
            echo(f"dld export-engine: {error}", err=True)
        return int(ExitCode.BAD_INPUT)
    if args.dry_run:
        return print_dry_run(spec, args.json, "dld export-engine")
    from dld_jupyter.cli.targets import target_from_args

    target = target_from_args(args) if args.target else None
    result = run_spec(spec, quiet=args.json, target=target)
    if args.json:
        data = outcome(result)
        data["engine"] = spec.resolved().engine if result.ok else None
        echo(json.dumps(data, indent=2))
    elif result.ok:
        metadata = result.artifacts.get("layer_info")
        echo(f"engine: {spec.resolved().engine}" + (f"\nlayer information: {metadata}" if metadata else ""))
    else:
        echo(f"dld export-engine: {result.status.value}: {result.error}", err=True)
    return int(exit_code(result))


def register(subparsers: Any) -> None:
    parser = add_verb(subparsers, "export-engine", __doc__, "build a TensorRT engine from an ONNX model", func=_run)
    parser.add_argument("model", help="path of the ONNX model")
    parser.add_argument("-o", "--output", metavar="MODEL.engine", help="engine path (default: <model>.engine)")
    parser.add_argument("--metadata", metavar="MODEL.trt.json", help="write the engine inspector's layer information")
    parser.add_argument(
        "--report", metavar="REPORT.json", help="refused: an export measures nothing (profile the engine instead)"
    )
    parser.add_argument("--batch-size", type=int, help="inferred batch size for inputs with a single leading wildcard")
    add_trt_options(parser)
    from dld_jupyter.cli.targets import add_target_options

    add_target_options(parser)  # the engine is built there and copied back beside the model
    declare_files(parser, models=["model"], outputs={"--output": "engine", "--metadata": "metadata"})
    parser.add_argument("--json", action="store_true", help="print the outcome (or the dry run) as JSON on stdout")
