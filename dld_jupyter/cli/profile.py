"""`dld profile MODEL [options] -o REPORT.json`: profile an ONNX model with ONNX Runtime (default) or TensorRT
(`--backend tensorrt`, with the TensorRT settings and `--dry-run`) and write a dld report.

The run happens in a worker process (a crash of the runtime is reported, not fatal). Progress goes to stderr;
with --json a single JSON object describing the outcome goes to stdout. Exit codes: 0 done, 1 the run failed
(runtime error, crash, cancelled), 2 bad input (arguments, model, input data), 3 backend or provider unavailable.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dld_jupyter.activities.errors import BAD_INPUT, UNAVAILABLE, SpecError
from dld_jupyter.activities.kinds.profile import ORT_OPTIONS, profile_spec
from dld_jupyter.activities.result import ActivityResult, LogLine, Progress
from dld_jupyter.activities.scheduler import run_activity
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.formats.terminal_text import echo


def add_profile_options(parser: argparse.ArgumentParser) -> None:
    """The options of the ONNX Runtime profile activity (seed 000), shared by `dld profile` and `dld-prof`."""
    parser.add_argument("model", help="path of the ONNX model to profile")
    parser.add_argument("-o", "--output", metavar="REPORT.json", help="report path (default: <model>.dld-report.json)")
    parser.add_argument(
        "--backend", default="onnxruntime", choices=["onnxruntime", "tensorrt"], help="inference framework"
    )
    parser.add_argument("--provider", default="cpu", choices=["cpu", "cuda"], help="execution provider (default cpu)")
    parser.add_argument("-n", "--iterations", type=int, default=100, help="measured passes (default 100)")
    parser.add_argument("--warmup", type=int, default=10, help="warm-up passes, not measured (default 10)")
    parser.add_argument(
        "--optimize",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="graph optimization: ORT_ENABLE_ALL when on, ORT_DISABLE_ALL when off (default on)",
    )
    parser.add_argument(
        "--random-inputs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="random input data, free dimensions treated as 1 (default: on unless --input-folder is given)",
    )
    parser.add_argument(
        "--input-folder", metavar="DIR", help="folder with one TensorProto <input name>.pb per model input"
    )
    parser.add_argument(
        "--batch-size", type=int, help="inferred batch: fills a single leading free input dimension (random inputs)"
    )
    parser.add_argument("--device", type=int, default=0, help="GPU index for the CUDA provider and metrics")
    parser.add_argument("--seed", type=int, default=0, help="random input data seed (default 0)")
    parser.add_argument("--threads", type=int, default=0, help="ORT intra-op threads (default 0: ORT decides)")
    parser.add_argument(
        "--gpu-metrics",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="sample NVML/GPM GPU metrics during the passes of a CUDA run (default on)",
    )
    parser.add_argument("--lock-clocks", action="store_true", help="lock GPU clocks to base during the run")
    parser.add_argument(
        "--kernel-records",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="record a CUDA run's kernels with CUPTI (cupti-python; default on), in passes of their own after the "
        "profiled ones, so the layer times never carry CUPTI's cost",
    )
    parser.add_argument(
        "--sampling-ms", type=float, default=100.0, help="GPM metric sampling interval, ms (at least 100)"
    )
    from dld_jupyter.cli.trt_profile import add_tensorrt_profile_options

    add_tensorrt_profile_options(parser)  # also --hide-non-compute, shared by both backends
    declare_files(parser, models=["model"], inputs={"--input-folder": "input folder"}, outputs={"--output": "report"})


def spec_from_args(args: argparse.Namespace) -> ActivitySpec:
    if args.backend == "tensorrt":
        from dld_jupyter.cli.trt_profile import trt_profile_spec

        return trt_profile_spec(args)
    spec: ActivitySpec = profile_spec(args.model, "onnxruntime", **{name: getattr(args, name) for name in ORT_OPTIONS})
    return spec


def exit_code(result: ActivityResult) -> ExitCode:
    if result.ok:
        return ExitCode.OK
    return {BAD_INPUT: ExitCode.BAD_INPUT, UNAVAILABLE: ExitCode.UNAVAILABLE}.get(
        result.error_kind or "", ExitCode.FAILED
    )


class StderrProgress:
    """One updating progress line on a terminal, one line per phase otherwise; warnings and errors printed."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.phase = ""

    def progress(self, progress: Progress) -> None:
        if self.quiet:
            return
        if self.tty:
            echo(f"{progress.phase:<14} {100 * progress.fraction:5.1f}%", end="\r", err=True)  # overwritten next
        elif progress.phase != self.phase:
            echo(f"{progress.phase}...", err=True)
        self.phase = progress.phase

    def log(self, line: LogLine) -> None:
        if line.level in ("warning", "error") and not self.quiet:
            echo(f"\n{line.level}: {line.message}" if self.tty else f"{line.level}: {line.message}", err=True)

    def finish(self) -> None:
        if self.tty and not self.quiet and self.phase:
            echo(err=True)


def run_spec(spec: ActivitySpec, quiet: bool, target: Target | None = None) -> ActivityResult:
    display = StderrProgress(quiet)
    try:
        return run_activity(spec, on_progress=display.progress, on_log=display.log, target=target)
    finally:
        display.finish()


def outcome(result: ActivityResult) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "report": result.report_path,
        "error": result.error,
        "error_kind": result.error_kind,
        "exit_code": int(exit_code(result)),
        "duration_s": round(result.duration_s, 3),
    }


MAX_RANDOM_INPUT_BYTES = 8 << 30  # random inputs live in memory twice (numpy and ORT): 8 GiB is already a lot


def input_problem(model: str, batch_size: int | None) -> str | None:
    """Why the model's inputs cannot be filled with random data (None when they can).

    Checked before the worker starts so that a negative or absurd dimension is bad input (exit 2) with a message
    naming the input, not a numpy error from inside the run; an unreadable model is reported the same way.
    """
    import onnx.helper

    from dld_jupyter.document import DocumentError
    from dld_jupyter.document.files import io

    try:
        graph = io.read_checked(model).proto.graph
    except DocumentError as error:
        return str(error)
    if batch_size is not None and batch_size < 1:
        return f"--batch-size must be at least 1, got {batch_size}."
    from dld_jupyter.activities.runtimes.onnxruntime.inputs import batch_problem

    refused = batch_problem(graph, batch_size)
    if refused is not None:
        return refused
    weights = {tensor.name for tensor in graph.initializer}
    total = 0
    for value in graph.input:
        if value.name in weights or not value.type.HasField("tensor_type"):
            continue
        tensor = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
        bad = next((d for d in dims if d is not None and d < 0), None)
        if bad is not None:
            return f"input {value.name!r} has the negative dimension {bad}; fix the model's input shape."
        batch = batch_size if batch_size and [i for i, d in enumerate(dims) if d is None] == [0] else 1
        sizes = [(batch if i == 0 else 1) if d is None else d for i, d in enumerate(dims)]
        try:
            itemsize = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type).itemsize
        except (KeyError, ValueError, TypeError):
            itemsize = 8
        count = 1
        for size in sizes:
            count *= size
        total += count * itemsize
        if total > MAX_RANDOM_INPUT_BYTES:
            return (
                f"input {value.name!r} of shape {sizes}{' (with --batch-size)' if batch > 1 else ''} needs "
                f"{count * itemsize:,} bytes of random data "
                f"(more than {MAX_RANDOM_INPUT_BYTES >> 30} GiB in all); fix its shape or use --input-folder."
            )
    return None


def _run(args: argparse.Namespace) -> int:
    try:
        spec = spec_from_args(args)
    except SpecError as error:
        return _fail(args, str(error), ExitCode.BAD_INPUT)
    if args.dry_run:
        from dld_jupyter.cli.trt_options import print_dry_run

        if args.backend != "tensorrt":
            return _fail(
                args, "--dry-run: shows what a TensorRT run would do; add --backend tensorrt", ExitCode.BAD_INPUT
            )
        return print_dry_run(spec, args.json, "dld profile")
    if not args.input_folder:
        problem = input_problem(args.model, args.batch_size)
        if problem is not None:
            return _fail(args, problem, ExitCode.BAD_INPUT)
    from dld_jupyter.cli.targets import target_from_args

    target = target_from_args(args) if getattr(args, "target", None) else None
    result = run_spec(spec, quiet=args.json, target=target)
    code = exit_code(result)
    if args.json:
        data = outcome(result)
        if result.ok and result.report_path:
            from dld_jupyter.report_format.io import load_report

            summary = load_report(result.report_path).summary
            data["summary"] = {k: v for k, v in vars(summary).items() if k != "settings"}
        echo(json.dumps(data, indent=2))
    elif result.ok:
        echo(f"report: {result.report_path}")
    else:
        echo(f"dld profile: {result.status.value}: {result.error}", err=True)
    return int(code)


def _fail(args: argparse.Namespace, message: str, code: ExitCode) -> int:
    if getattr(args, "json", False):
        echo(json.dumps({"status": "failed", "error": message, "error_kind": BAD_INPUT, "exit_code": int(code)}))
    else:
        echo(f"dld profile: {message}", err=True)
    return int(code)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "profile",
        help="profile an ONNX model with ONNX Runtime or TensorRT into a report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_profile_options(parser)
    from dld_jupyter.cli.targets import add_target_options

    add_target_options(parser)
    parser.add_argument("--json", action="store_true", help="print the outcome as one JSON object on stdout")
    parser.set_defaults(func=_run)
