"""dld_jupyter: design, inspect, edit and profile ONNX models in JupyterLab.

    import dld_jupyter as dld
    d = dld.open("model.onnx")   # a Designer: canvas, editors, toolbar (displays in a cell)
    r = dld.profile("model.onnx")  # ONNX Runtime profile on the CPU by default -> Report
    dld.report(r)                # the report viewer

Everything here is imported lazily so `import dld_jupyter` stays cheap and the core layers
(document, transforms, activities, reports) stay usable on hosts without Jupyter.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dld_jupyter import _lazy_sympy
from dld_jupyter._version import __version__

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

    from dld_jupyter.activities.api import EngineExport
    from dld_jupyter.activities.runtimes.tensorrt.installs import TrtInstall
    from dld_jupyter.document.operators.operator_docs import IndexEntry, OperatorReference
    from dld_jupyter.frontdoor.analysis import Analysis, Inputs
    from dld_jupyter.frontdoor.run_source import RunInput
    from dld_jupyter.frontdoor.runs_table import RunsTable
    from dld_jupyter.model_compare import Divergence, ModelDiff
    from dld_jupyter.model_compare.structural_diff import ModelLike
    from dld_jupyter.report_format.model import Report
    from dld_jupyter.widgets.designer.designer import Designer
    from dld_jupyter.widgets.engine.engine_designer import EngineDesigner
    from dld_jupyter.widgets.report.report_viewer import ReportViewer
    from dld_jupyter.widgets.runs.start_activity import StartActivity
    from dld_jupyter.widgets.sweep.sweep_form import SweepPanel
    from dld_jupyter.widgets.sweep.sweep_results import SweepResults
    from dld_jupyter.widgets.sweep.sweep_view import SweepView

    ReportLike = Report | str | os.PathLike[str]

_lazy_sympy.install()  # before any module of the package imports onnx-ir (_lazy_sympy.py says why)

__all__ = [
    "__version__",
    "analyse",
    "compare",
    "diff",
    "diverge",
    "export_engine",
    "new",
    "open",
    "open_engine",
    "operator_docs",
    "profile",
    "report",
    "runs",
    "start_activity",
    "sweep",
    "sweep_form",
    "sweep_report",
    "sweep_results",
    "tensorrt_installs",
    "timeline_figure",
]


def open(path: str, **options: Any) -> Designer:
    """Open an ONNX model in a Designer (canvas + editors); displays when it is a cell's last expression."""
    from dld_jupyter.widgets.designer.designer import open_designer

    return open_designer(path, **options)


def new(opset: int = 21, contrib: bool = False, **options: Any) -> Designer:
    """Create an empty model (opset 1 ... newest known to the installed onnx; optional com.microsoft ops)."""
    from dld_jupyter.widgets.designer.designer import new_designer

    return new_designer(opset=opset, contrib=contrib, **options)


def operator_docs(name: str | None = None, domain: str = "ai.onnx") -> OperatorReference | list[IndexEntry]:
    """The layer documentation (JupyterLab: Help ▸ ONNX Operator Documentation; `dld operators`): without a name,
    every operator (name, domain, newest version, category, summary); with one, that operator's every version
    (description, inputs, outputs, attributes with defaults, type constraints), newest first."""
    from dld_jupyter.document.operators.operator_docs import operator_index, operator_reference

    return operator_index() if name is None else operator_reference(name, domain)


def open_engine(path: str, **options: Any) -> EngineDesigner:
    """Open a TensorRT engine's layer information (`.trt.json`, `trtexec --exportLayerInfo`) as a read-only graph:
    layers as nodes with precision and tactic, tensors as links with shape and format."""
    from dld_jupyter.widgets.engine.engine_designer import open_engine as build

    return build(path, **options)


def export_engine(model: RunInput, **options: Any) -> EngineExport:
    """Build a TensorRT engine from a model (path, Designer or Document) with its profiles and layer precisions;
    returns the engine's path, its layer information and the equivalent trtexec command, no report: an export
    measures nothing (UnavailableError without TensorRT); see
    `dld export-engine --help`."""
    from dld_jupyter.activities.api import export_engine as run_export
    from dld_jupyter.frontdoor.runs import track

    track()  # the live runs registry lists this run
    return run_export(model, **options)


def tensorrt_installs(add: str | os.PathLike[str] | None = None) -> list[TrtInstall]:
    """Every TensorRT found here, with its version (this environment's module, trtexec on PATH, the paths added):
    what the export and profile forms list; `add` checks a path and keeps it in that list. Choose one in a run with
    `trt="10.6"` or `trt=path` (or its `settings()`): `dld.export_engine(d, trt="10.6")`."""
    from dld_jupyter.activities.runtimes.tensorrt.installs import InstallStore, find_installs

    store = InstallStore()
    if add is not None:
        store.add(os.fspath(add))
    return find_installs(store)


def runs() -> RunsTable:
    """This kernel's live and past runs, newest first (the sidebar's Runs section): kind, model, target, state,
    progress, the report's median, start and duration, artifacts and `.command_line`, the `dld` command that
    reproduces each; a table in a notebook."""
    from dld_jupyter.frontdoor.run_rows import rows
    from dld_jupyter.frontdoor.runs_table import RunsTable

    return RunsTable(rows())


def analyse(model: RunInput, inputs: Inputs | None = None, provider: str = "cpu", **options: Any) -> Analysis:
    """Analyse a model (path, Designer or Document) on `inputs` ({name: "cat.png" | "x.npy" | array | "random" |
    "zeros"}): breakpoints, step, resume, tensors, overrides; the document is read-only until `.stop()`."""
    from dld_jupyter.frontdoor.analysis import analyse as start

    return start(model, inputs, provider, **options)


def profile(model: RunInput, **options: Any) -> Report:
    """Profile a model (path, Designer or Document) and return its Report; see `dld profile --help`."""
    from dld_jupyter.activities.api import profile as run_profile
    from dld_jupyter.frontdoor.runs import track

    track()  # the live runs registry lists this run
    return run_profile(model, **options)


def sweep(models: RunInput | Sequence[RunInput], **options: Any) -> SweepView:
    """Profile every point of models × batch × provider × precision × targets (each its own report, a manifest
    beside them in `out`); returns the live sweep view (rows, Pareto chart, compare, CSV, cancel, wait). The same
    call again completes missing points; `executor=` takes "dask" (this kernel's Client), "dask-local" (a local
    cluster started for the sweep, stopped when it ends), "dask://host:port" or any Executor."""
    from dld_jupyter.frontdoor.runs import track
    from dld_jupyter.widgets.sweep.sweep_view import start

    track()  # the live runs registry lists each point's run
    return start(models, **options)


def sweep_form(model: RunInput, run: bool = False, **fields: Any) -> SweepPanel:
    """The Sweep form in the run panel for a model path or Designer (batch="1,8", provider=("cpu", "cuda"),
    precision, iterations, out, executor="local"|"dask", scheduler="tcp://host:8786", local_cluster=True): builds
    the grid, shows each point's progress, then the Pareto chart and a comparison of chosen points."""
    from dld_jupyter.widgets.sweep.sweep_form import sweep_form as build

    return build(model, run=run, **fields)


def start_activity(model: str | os.PathLike[str] = "", activity: str = "profile", run: bool = False,
                   **settings: Any) -> StartActivity:
    """The Start Activity dialog: profile ("profile"), export a TensorRT engine ("export") or sweep ("sweep") a model
    FILE without opening it in a designer. The activity's own form (settings pre-filled from `settings`) with its
    target chooser, Run/Cancel, progress and result; `run=True` starts it at once. JupyterLab's launcher card and
    command "Start Activity" open it in a tab, where the report opens in a tab beside it."""
    from dld_jupyter.widgets.runs.start_activity import start_activity as build

    return build(model, activity, run=run, **settings)


def sweep_results(folder: str | os.PathLike[str]) -> SweepResults:
    """A sweep folder's results, wide: the table, the labelled Pareto chart and Compare (what its Lab tab shows)."""
    from dld_jupyter.widgets.sweep.sweep_results import sweep_results as build

    return build(folder)


def sweep_report(folder: str | os.PathLike[str]) -> SweepView:
    """The sweep viewer of a sweep folder (`dld report sweep DIR` in the notebook)."""
    from dld_jupyter.widgets.sweep.sweep_view import open_sweep

    return open_sweep(folder)


def report(report_or_path: ReportLike, **options: Any) -> ReportViewer:
    """Show a report (a Report or a path to a .dld-report.json / trtexec profile) in the report viewer."""
    from dld_jupyter.widgets.report.report_viewer import show_report

    return show_report(report_or_path, **options)


def compare(*reports_or_paths: ReportLike, baseline: int = 0, **options: Any) -> ReportViewer:
    """Several reports side by side in the report viewer, times against `baseline` (0-based, changeable there)."""
    from dld_jupyter.widgets.report.report_viewer import compare_reports

    return compare_reports(*reports_or_paths, baseline=baseline, **options)


def diff(a: ModelLike | Designer, b: ModelLike | Designer) -> ModelDiff:
    """What changed from model `a` to model `b` (paths, Designers, Documents or ModelProtos): matched, added, removed
    and changed nodes, paired by structure with names only as a hint; see `dld diff --help`."""
    from dld_jupyter.activities.model_ref import document_of
    from dld_jupyter.model_compare import diff as structural_diff

    return structural_diff(document_of(a), document_of(b))


def diverge(reference: ModelLike | Designer, candidate: ModelLike | Designer, **options: Any) -> Divergence:
    """The first node where `candidate`'s values part from `reference`'s and the per-node table (inputs=, metric=,
    tolerance=, reference_provider=, candidate_provider=, window=, seed=; node_data= and table= paths to write); see
    `dld diverge --help`. It runs in the activity worker, listed in the live runs; `on_progress(progress)` hears each
    window (as for dld.profile), a kernel interrupt cancels it (the window in flight ends, its copies go)."""
    from dld_jupyter.activities.model_ref import document_of
    from dld_jupyter.frontdoor.compare_runs import run_divergence

    return run_divergence(document_of(reference), document_of(candidate), **options)


def timeline_figure(report_or_path: ReportLike) -> Figure:
    """The median pass of a report (a Report or a report path) as a Plotly figure: streams as rows, overhead in its
    own colour, GPU metrics as linked rows below; for embedding and export (`fig.write_html`, `fig.write_image`)."""
    from dld_jupyter.report_format.io import load_report
    from dld_jupyter.report_format.model import Report
    from dld_jupyter.widgets.report.timeline_figure import timeline_figure as build

    report = report_or_path if isinstance(report_or_path, Report) else load_report(report_or_path)
    return build(report)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "dld-jupyter"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """Jupyter Server extension (kernel websockets with TCP_NODELAY; see dld_jupyter.lab.server_extension)."""
    return [{"module": "dld_jupyter.lab.server_extension"}]


def __getattr__(name: str) -> Any:
    """`dld.targets` (the saved SSH targets: add, list, remove, check) loads on first use."""
    if name == "targets":
        import importlib

        return importlib.import_module("dld_jupyter.targets")
    raise AttributeError(f"module 'dld_jupyter' has no attribute {name!r}")
