"""`dld report`: read, export, compare and import profiling reports from the command line.

REPORT may be a dld report, a trtexec --exportProfile JSON or an ONNX Runtime profile JSON (detected by content).
Exit codes: 0 done, 2 bad input (unreadable or invalid file, bad arguments), 1 failed otherwise. Text printed from
a report has its control characters replaced, so a hostile layer name cannot send escape sequences to the terminal.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.cli import node_data
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.file_options import declare_files
from dld_jupyter.cli.report_text import format_comparison, format_report
from dld_jupyter.cli.verbs import add_verb, count
from dld_jupyter.formats.terminal_text import echo
from dld_jupyter.report_format.io import save_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import compare
from dld_jupyter.reports.export import write_csv, write_html, write_trace
from dld_jupyter.reports.open import open_report
from dld_jupyter.reports.stats import NameFilter


def _labels(paths: Sequence[str]) -> list[str]:
    stems = [Path(p).name.removesuffix(".json").removesuffix(".dld-report") for p in paths]
    return stems if len(set(stems)) == len(stems) else list(paths)


def _show(args: argparse.Namespace) -> int:
    echo(format_report(open_report(args.report), args.top), end="")
    return ExitCode.OK


def _baseline_layers(report: Report, wanted: Sequence[str]) -> list[int]:
    """--baseline-layer values (a layer name, or a 0-based position) as positions; ValueError names a bad one."""
    names = {layer.name: i for i, layer in reversed(list(enumerate(report.layers)))}
    found = []
    for item in wanted:
        if item in names:
            found.append(names[item])
        elif item.isdigit() and int(item) < len(report.layers):
            found.append(int(item))
        else:
            raise ValueError(f"--baseline-layer {item!r}: no layer of that name, nor a position below "
                             f"{len(report.layers)}")
    return list(dict.fromkeys(found))


def _export(args: argparse.Namespace) -> int:
    report = open_report(args.report)
    if args.command == "csv":
        chosen = None
        if args.filter:
            chosen = [report.layers[i] for i in NameFilter(report.layers)(args.filter)]
        path = write_csv(report, args.output, chosen, args.full_pass)
    elif args.command == "html":
        try:
            baselines = _baseline_layers(report, args.baseline_layer or ())
        except ValueError as error:
            echo(f"dld report html: error: {error}", err=True)
            return ExitCode.BAD_INPUT
        path = write_html(report, args.output, baselines)
    elif getattr(args, "format", "chrome") == "perfetto":
        from dld_jupyter.reports.perfetto import write_perfetto

        path = write_perfetto(report, args.output)
    else:
        path = write_trace(report, args.output)
    echo(f"wrote {path}")
    return ExitCode.OK


def _dashboard(args: argparse.Namespace) -> int:
    from dld_jupyter.formats.atomic_write import atomic_write_text
    from dld_jupyter.reports.dashboard.table_csv import table_csv
    from dld_jupyter.reports.dashboard.tables import TABLES
    from dld_jupyter.reports.dashboard.text import dashboard_text, named_table

    report = open_report(args.report)
    try:
        text = dashboard_text(report, args.start, args.stop, args.rows)
        table = named_table(report, args.table, args.start, args.stop) if args.csv else None
    except ValueError as error:
        echo(f"dld report dashboard: error: {error}", err=True)
        return int(ExitCode.BAD_INPUT)
    echo(text)
    if table is not None:
        atomic_write_text(args.csv, table_csv(table))
        echo(f"wrote {args.csv} ({len(table.rows)} rows of the {args.table} table; tables: {', '.join(TABLES)})")
    return int(ExitCode.OK)


def _compare(args: argparse.Namespace) -> int:
    labels = _labels(args.reports)
    baseline = 0
    if args.baseline is not None:
        choices = list(args.reports) + labels
        if args.baseline not in choices:
            echo(f"dld report compare: error: --baseline {args.baseline!r} is not one of the reports given "
                f"({', '.join(labels)})", err=True)
            return ExitCode.BAD_INPUT
        baseline = choices.index(args.baseline) % len(args.reports)
    structures = [None if s == "-" else s for s in args.structure or ()] or None
    if structures is not None and len(structures) != len(args.reports):
        echo(f"dld report compare: error: {len(structures)} --structure for {len(args.reports)} reports: give one "
             "per report, in order ('-' for the one a report names)", err=True)
        return ExitCode.BAD_INPUT
    reports = [open_report(p) for p in args.reports]
    result = compare(reports, labels, baseline, structures)
    echo(format_comparison(result, args.top), end="")
    if args.html:
        from dld_jupyter.formats.atomic_write import atomic_write_text
        from dld_jupyter.reports.compare_html import comparison_html

        echo(f"wrote {atomic_write_text(args.html, comparison_html(reports, result))}")
    return ExitCode.OK


def _import_trtexec(args: argparse.Namespace) -> int:
    from dld_jupyter.reports.trtexec import import_trtexec

    report = import_trtexec(args.profile, args.layers, args.times, args.model, args.metadata or ())
    echo(f"wrote {save_report(report, args.output)} ({len(report.layers)} layers)")
    return ExitCode.OK


def _import_ort(args: argparse.Namespace) -> int:
    from dld_jupyter.reports.ort_trace import import_ort_trace

    report = import_ort_trace(args.trace, args.model, args.warmup)
    echo(f"wrote {save_report(report, args.output)} ({len(report.layers)} layers, {report.summary.passes} passes)")
    return ExitCode.OK


def register(subparsers: Any) -> None:
    report = add_verb(subparsers, "report", __doc__, "show, export, compare and import profiling reports")
    verbs = report.add_subparsers(dest="command", metavar="COMMAND", required=True)

    show = verbs.add_parser("show", help="summary, top layers, time by type and recommendations as text")
    show.add_argument("report", metavar="REPORT")
    show.add_argument("--top", type=count, default=10, help="how many of the slowest layers to list (default 10)")
    show.set_defaults(func=_show)
    declare_files(show, inputs={"report": "report"})

    dash = verbs.add_parser("dashboard", help="the dashboard (DLProf's panels): GPU use, kernels, iterations, ops")
    dash.add_argument("report", metavar="REPORT")
    dash.add_argument("--start", type=int, help="first measured pass (0-based) that counts; default the first")
    dash.add_argument("--stop", type=int, help="last measured pass (0-based) that counts; default the last")
    dash.add_argument("--rows", type=count, default=10,
                      help="rows of each table, and iterations at each end, to print (default 10)")
    dash.add_argument("--table", choices=("op_types", "ops", "kernels"), default="ops", help="table for --csv")
    dash.add_argument("--csv", metavar="FILE", help="also write --table (default ops) as CSV")
    dash.set_defaults(func=_dashboard)
    declare_files(dash, inputs={"report": "report"}, outputs=["--csv"])

    sweep = verbs.add_parser("sweep", help="the table of a sweep folder (dld sweep), Pareto points starred")
    sweep.add_argument("folder", metavar="DIR")
    sweep.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    sweep.add_argument("--chart", metavar="FILE.svg", help="also write the labelled Pareto chart as SVG")
    sweep.add_argument("--dashboard", action="store_true",
                       help="also the dashboard of every finished point (one column each) and the GPUs view")
    sweep.set_defaults(func=_sweep)
    declare_files(sweep, inputs={"folder": "sweep folder"}, outputs=["--csv", "--chart"])

    for name, what in (
        ("csv", "the layer table as CSV"),
        ("html", "a standalone HTML page (no network needed)"),
        ("trace", "the median-pass timeline as Chrome-trace JSON (open in ui.perfetto.dev)"),
    ):
        sub = verbs.add_parser(name, help=f"write {what}")
        sub.add_argument("report", metavar="REPORT")
        sub.add_argument("-o", "--output", required=True, metavar="FILE", help="file to write")
        if name == "trace":
            sub.add_argument(
                "--format",
                choices=("chrome", "perfetto"),
                default="chrome",
                help="chrome: Chrome-trace JSON (default); perfetto: native Perfetto protobuf (.pftrace) with a "
                "track per host and CUDA stream, kernels flowing from the host call that launched them, counters",
            )
        if name == "html":
            sub.add_argument("--baseline-layer", action="append", metavar="LAYER",
                             help="a layer (name or 0-based position) shown as a baseline in its colour; repeatable")
        if name == "csv":
            sub.add_argument("--filter", default="", help="only layers whose name contains this (any case)")
            sub.add_argument(
                "--full-pass",
                action="store_true",
                help="percentages of the full pass time instead of the sum of layer times",
            )
        sub.set_defaults(func=_export)
        declare_files(sub, inputs={"report": "report"}, outputs={"--output": "output (-o)"})

    node_data.register(verbs)

    comp = verbs.add_parser("compare", help="compare reports layer by layer against a baseline")
    comp.add_argument("reports", nargs="+", metavar="REPORT", help="two or more reports")
    comp.add_argument(
        "--baseline", help="the report (as given, or its file name) the others are compared to; default the first"
    )
    comp.add_argument("--top", type=count, default=10, help="how many differing layers to list (default 10)")
    comp.add_argument(
        "--structure", action="append", metavar="MODEL.onnx|LAYERINFO.json",
        help="per report, in order ('-': the one the report names): the ONNX model or trtexec --exportLayerInfo "
        "file its layers are paired through when names differ (an FP16 or QAT export)",
    )
    comp.set_defaults(func=_compare_checked)
    comp.add_argument("--html", metavar="FILE", help="also write the comparison as a standalone HTML page")
    declare_files(comp, inputs={"reports": "report"}, outputs=["--html"])

    trt = verbs.add_parser("import-trtexec", help="convert trtexec output files into a dld report")
    trt.add_argument("profile", metavar="PROFILE.json", help="trtexec --exportProfile output")
    trt.add_argument(
        "--layers",
        metavar="LAYERINFO.json",
        help="trtexec --exportLayerInfo output (types, "
        "dimensions, precisions; build with --profilingVerbosity=detailed)",
    )
    trt.add_argument("--times", metavar="TIMES.json", help="trtexec --exportTimes output (per-pass times)")
    trt.add_argument("--model", metavar="MODEL.onnx", help="the ONNX model, to link layers to its nodes")
    trt.add_argument(
        "--metadata",
        metavar="META.json",
        action="append",
        help="TREx metadata JSON (device, build options); repeatable",
    )
    trt.add_argument("-o", "--output", required=True, metavar="REPORT.json", help="report file to write")
    trt.set_defaults(func=_import_trtexec)
    declare_files(trt, models=["--model"], outputs={"--output": "output (-o)"}, inputs={
        "profile": "profile", "--layers": "layer information", "--times": "times", "--metadata": "metadata"})

    ort = verbs.add_parser("import-ort", help="convert an ONNX Runtime profile (enable_profiling) into a report")
    ort.add_argument("trace", metavar="TRACE.json", help="the JSON that InferenceSession.end_profiling() wrote")
    ort.add_argument("--model", metavar="MODEL.onnx", help="the ONNX model, to link layers to its nodes")
    ort.add_argument("--warmup", type=int, default=0, help="runs at the start to leave out as warm-up (default 0)")
    ort.add_argument("-o", "--output", required=True, metavar="REPORT.json", help="report file to write")
    ort.set_defaults(func=_import_ort)
    declare_files(ort, models=["--model"], inputs={"trace": "trace"}, outputs={"--output": "output (-o)"})


def _compare_checked(args: argparse.Namespace) -> int:
    if len(args.reports) < 2:
        echo("dld report compare: error: give at least two reports", err=True)
        return int(ExitCode.BAD_INPUT)
    return _compare(args)


def _sweep(args: argparse.Namespace) -> int:
    from dld_jupyter.activities.sweep import load_manifest
    from dld_jupyter.formats.atomic_write import atomic_write_text
    from dld_jupyter.reports.sweep_table import sweep_csv, sweep_rows, sweep_text

    manifest = load_manifest(args.folder)
    echo(sweep_text(manifest))
    if args.dashboard:
        from dld_jupyter.reports.dashboard.many import sweep_dashboard, sweep_gpus
        from dld_jupyter.reports.dashboard.text import table_text

        gpus = sweep_gpus(manifest)
        echo(f"\nDashboard per point\n{table_text(sweep_dashboard(manifest))}\n\nGPUs\n"
             + (table_text(gpus) if gpus.rows else "  none: no point ran on a GPU"))
    chart = None
    if args.chart:
        from dld_jupyter.reports.sweep_chart import pareto_chart

        chart = pareto_chart(sweep_rows(manifest))
        if chart is None:
            echo(f"dld report sweep: error: --chart: no point of {args.folder} has finished: nothing to draw; "
                 "run or resume the sweep first (dld sweep --resume DIR)", err=True)
            return int(ExitCode.BAD_INPUT)
    if args.csv or args.chart:
        from dld_jupyter.formats.output_paths import check_outputs

        read: dict[str, str | Path | None] = {"sweep manifest": manifest.path}
        read |= {f"report of {e.point.id}": manifest.folder / e.report for e in manifest.points if e.report}
        check_outputs({"--csv": args.csv, "--chart": args.chart}, read)  # the folder's files: not declared inputs
    if args.csv:
        atomic_write_text(args.csv, sweep_csv(sweep_rows(manifest)))
    if chart is not None:
        atomic_write_text(args.chart, chart.svg_file())
    return int(ExitCode.OK)
