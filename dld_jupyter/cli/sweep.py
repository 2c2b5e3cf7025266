"""`dld sweep MODEL... --batch 1,8,32 --provider cpu,cuda --iterations N --out DIR`
`[--executor local|dask|dask-local|dask://…]` and `dld sweep --resume DIR`: every point of the grid profiled with
its own report, a manifest beside them.

Run again with the same grid (or `--resume DIR`), only the points not finished run; `--rerun` measures them all.
Prints one line per point as it ends and the table at the end (`dld report sweep DIR` prints it again).
Exit 0 when no point failed (not-applicable points say why and are not failures), 1 otherwise, 2 for bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.formats.terminal_text import echo


def _list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("sweep", help="profile a grid of models x batch x provider x precision",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL", help=".onnx files")
    parser.add_argument("--batch", default="1", help="batch sizes, comma-separated (default 1)")
    parser.add_argument("--provider", default="cpu", help="cpu, cuda, tensorrt; comma-separated (default cpu)")
    parser.add_argument("--precision", default="fp32", help="fp32, fp16, bf16, int8; comma-separated")
    parser.add_argument("--targets", default="localhost", help="target names, comma-separated")
    parser.add_argument("--iterations", type=int, default=20, help="measured passes per point (default 20)")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up passes per point (default 5)")
    parser.add_argument("--out", metavar="DIR", help="the sweep folder (default <first model>-sweep/)")
    parser.add_argument("--executor", default="local",
                        help="local | dask (the current client) | dask-local (a local cluster for the sweep, "
                        "stopped at its end) | dask://ADDRESS (host:port, tcp://, tls://, ws://…) "
                        "| dask://SCHEDULER.json (a scheduler file); every worker must read the models")
    parser.add_argument("--foreign", default="warn", choices=("warn", "wait", "fail"),
                        help="another process on a point's GPU: warn, wait for it, or fail the point")
    parser.add_argument("--lock-clocks", action="store_true", help="lock GPU clocks to base for the whole sweep")
    parser.add_argument("--foreign-wait-s", type=float, default=60.0,
                        help="with --foreign wait: how long to wait for the GPU to be free (default 60 s)")
    parser.add_argument("--optimize", action=argparse.BooleanOptionalAction, default=True,
                        help="ONNX Runtime graph optimizations (default on)")
    parser.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (default 0: it decides)")
    parser.add_argument("--seed", type=int, default=0, help="random input data seed (default 0)")
    parser.add_argument("--gpu-metrics", action=argparse.BooleanOptionalAction, default=False,
                        help="sample NVML metrics in every GPU point (default off: 100 ms+ per point)")
    parser.add_argument("--gpus", help="GPU indices the sweep may use, comma-separated (default: every GPU)")
    parser.add_argument("--resume", metavar="DIR", help="complete the sweep in DIR from its manifest")
    parser.add_argument("--rerun", action="store_true", help="measure finished points again")
    parser.set_defaults(func=run)
    declare_files(parser, models=["models"], folders={"--out": "--out", "--resume": "--resume"})


def sweep_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """`start_sweep`'s arguments from the command line (the grid, the folder, the executor, the settings)."""
    from dld_jupyter.activities.errors import SpecError

    def integers(option: str, text: str) -> list[int]:
        try:
            return [int(part) for part in _list(text)]
        except ValueError as error:
            raise SpecError(f"{option}: {text!r} is not a comma-separated list of integers") from error

    settings = {"iterations": args.iterations, "warmup": args.warmup, "foreign": args.foreign,
                "lock_clocks": args.lock_clocks, "foreign_wait_s": args.foreign_wait_s, "optimize": args.optimize,
                "threads": args.threads, "seed": args.seed, "gpu_metrics": args.gpu_metrics,
                "gpus": tuple(integers("--gpus", args.gpus)) if args.gpus else None}
    return {"models": args.models, "batch": integers("--batch", args.batch), "provider": _list(args.provider),
            "precision": _list(args.precision), "targets": _list(args.targets), "out": args.out,
            "executor": None if args.executor == "local" else args.executor, "rerun": args.rerun, **settings}


def run(args: argparse.Namespace) -> int:
    from dld_jupyter.activities.errors import SpecError
    from dld_jupyter.activities.sweep import Sweep, resume_sweep, start_sweep
    from dld_jupyter.activities.sweep.manifest import ENDED, FAILED
    from dld_jupyter.reports.sweep_table import sweep_text

    if args.resume:
        executor = None if args.executor == "local" else args.executor
        sweep = resume_sweep(args.resume, executor=executor, rerun=args.rerun)
    elif not args.models:
        raise SpecError("give MODEL files, or --resume DIR")
    else:
        sweep = start_sweep(**sweep_arguments(args))
    printed: set[str] = set()

    def progress(current: Sweep) -> None:
        for entry in current.points():
            if entry.state in ENDED and entry.point.id not in printed:
                printed.add(entry.point.id)
                median = f" median {entry.median_ms:.3f} ms" if entry.median_ms is not None else ""
                echo(f"{entry.point.id}: {entry.state}{median}{f' ({entry.reason})' if entry.reason else ''}")

    sweep.on_change(progress)
    try:
        sweep.wait()
    except KeyboardInterrupt:
        sweep.cancel()
        sweep.wait()
    echo(sweep_text(sweep.manifest))
    failed = any(entry.state == FAILED for entry in sweep.points()) or sweep.error is not None
    return int(ExitCode.FAILED if failed else ExitCode.OK)
