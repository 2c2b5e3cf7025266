"""`dld-prof MODEL [options]`: the command-line profiler. Profiles with ONNX Runtime or TensorRT
(`--backend tensorrt`) and prints the triage
(network summary, slowest layers, time per layer type) on stdout; a report file is only kept with -o/--save.

`dld-prof --worker SPEC.json|-` runs one activity spec with the worker's line protocol on stdout: remote targets
launch it on the target machine (see dld_jupyter.activities.targets).
Exit codes: 0 done, 1 run failed, 2 bad input, 3 backend or provider unavailable (the table in cli.errors; no
traceback for bad input).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.cli.errors import run_guarded
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.profile import add_profile_options, exit_code, input_problem, run_spec, spec_from_args
from dld_jupyter.cli.verbs import count
from dld_jupyter.formats.terminal_text import echo
from dld_jupyter.report_format.model import Report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dld-prof", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_profile_options(parser)
    parser.add_argument("--save", action="store_true", help="keep the report at its default path (or -o)")
    parser.add_argument("--top", type=count, default=10, help="slowest layers to list (default 10)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return parser


def triage(report: Report, top: int = 10) -> str:
    """The text dld-prof prints: summary, the `top` slowest layers, and time per layer type."""
    from dld_jupyter.reports.stats import layer_sum_ms, time_by_type, top_layers
    from dld_jupyter.reports.summary_text import median_text, overhead_text, target_text

    s = report.summary
    lines = [
        f"Network:            {s.model}",
        f"Backend:            {s.backend} ({s.provider}, optimization {s.optimization})",
        f"Device:             {s.device}",
        *([f"Target:             {target}"] if (target := target_text(report)) else []),
        f"Median pass:        {median_text(s, 3)} over {s.passes} passes ({s.warmup_passes} warm-up)",
        f"Spread:             min {s.min_ms:.3f} / p90 {s.p90_ms:.3f} / max {s.max_ms:.3f} / mean {s.mean_ms:.3f} ms",
        f"Stable:             {'yes' if s.stable else 'NO: ' + s.stability_note}",
    ]
    overhead = overhead_text(s, 3)
    if s.profiled_median_ms is not None and overhead is not None:
        lines.append(f"Profiled pass:      {s.profiled_median_ms:.3f} ms (per-node profiling overhead {overhead})")
    total = layer_sum_ms(report)
    lines.append(
        f"Layers:             {len(report.layers)} ({total:.3f} ms summed), {len(report.removed_nodes)} "
        "ONNX nodes removed by the optimizer"
    )
    lines += ["", f"Top {top} layers:", f"  {'#':>4}  {'ms':>9}  {'%':>6}  {'type':<22} name"]
    for layer in top_layers(report, top):
        lines.append(f"  {layer.index:>4}  {layer.median_ms:9.4f}  {layer.percent:6.2f}  {layer.type:<22} {layer.name}")
    lines += ["", "Time by layer type:", f"  {'type':<22} {'count':>5}  {'total ms':>9}  {'%':>6}  {'mean ms':>9}"]
    for row in time_by_type(report):
        lines.append(
            f"  {row.type:<22} {row.count:>5}  {row.total_ms:9.4f}  {row.total_percent:6.2f}  {row.mean_ms:9.4f}"
        )
    return "\n".join(lines)


def _worker(argv: Sequence[str]) -> int:
    from dld_jupyter.activities.worker import main as worker_main

    return worker_main(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["--worker"]:
        return _worker(args_list[1:])
    return run_guarded("dld-prof", _profile, build_parser().parse_args(args_list))


def _profile(args: argparse.Namespace) -> int:
    keep = args.save or args.output is not None
    with tempfile.TemporaryDirectory(prefix="dld-prof-") as folder:
        if not keep:
            stem = os.path.splitext(os.path.basename(args.model))[0]
            args.output = os.path.join(folder, f"{stem}.dld-report.json")
        try:
            spec = spec_from_args(args)
        except SpecError as error:
            echo(f"dld-prof: {error}", err=True)
            return int(ExitCode.BAD_INPUT)
        if args.dry_run:
            from dld_jupyter.cli.trt_options import print_dry_run

            if args.backend != "tensorrt":
                echo("dld-prof: --dry-run shows what a TensorRT run would do; add --backend tensorrt", err=True)
                return int(ExitCode.BAD_INPUT)
            return print_dry_run(spec, False, "dld-prof")
        problem = None if args.input_folder else input_problem(args.model, args.batch_size)
        if problem is not None:  # a negative or absurd input dimension: bad input, as in `dld profile`
            echo(f"dld-prof: {problem}", err=True)
            return int(ExitCode.BAD_INPUT)
        result = run_spec(spec, quiet=args.quiet)
        if not result.ok or not result.report_path:
            echo(f"dld-prof: {result.status.value}: {result.error}", err=True)
            return int(exit_code(result))
        from dld_jupyter.report_format.io import load_report

        echo(triage(load_report(result.report_path), args.top))
        if keep:
            echo(f"\nreport: {result.report_path}")
    return int(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
