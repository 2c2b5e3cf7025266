"""The report viewer widget (front end: js/src/widgets/report/index.ts): `dld.report(path_or_report)`.

State Python knows (synced): the payload and its binary buffer, height, heat colours, full-pass percentages, the
name filter, the selected table rows (positions in the first report) and the comparison baseline.
State Python never sees: timeline viewport and measurement, sort order, hover, open menus, scroll position.

Selecting table rows also selects their layers' ONNX nodes on the designer open on the report's model (the one it
was profiled from, the live designer of its `source_document`, or one showing the model file) and brings them into
view; no designer is opened for a mere selection.

The browser sends intents as messages: `open_nodes` (a layer name or a magnifier-menu entry was clicked), a
`request` of the shared envelope (formats/envelope.py) whose action `links` asks for the magnifier menu's
producers/consumers, and `js_error`; the kernel answers a request with a `reply` and sends `notice`s.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets
import traitlets

from dld_jupyter.formats.envelope import failed, ok
from dld_jupyter.frontdoor.designers import LiveDesigner, loading, registry
from dld_jupyter.frontdoor.run_source import RunSource
from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import compare
from dld_jupyter.reports.stats import filter_by_name
from dld_jupyter.widgets.report.layer_baselines import LayerBaselines
from dld_jupyter.widgets.report.report_dashboard import TABS, default_tab, tab_data, table_csv_text
from dld_jupyter.widgets.report.report_links import DesignerLinks, LinkError
from dld_jupyter.widgets.report.report_payload import build_payload
from dld_jupyter.widgets.report.report_sources import load_report, model_of, report_labels, source_document
from dld_jupyter.widgets.widget_base import DldWidget, check_keywords

ROWS = ("all", "filtered", "selected")
log = logging.getLogger(__name__)


class ReportViewer(DldWidget, LayerBaselines, bundle="report"):
    """One report, or several compared side by side (seed 001), with a table, timeline, charts and links."""

    keywords = ("height", "heat", "full_pass", "filter", "baseline", "selection", "tab", "dashboard_range",
                "layer_baselines")

    payload = traitlets.Dict().tag(sync=True)
    data = traitlets.Bytes(b"").tag(sync=True)
    height = traitlets.Unicode("auto").tag(sync=True)
    heat = traitlets.Bool(True).tag(sync=True)
    full_pass = traitlets.Bool(False).tag(sync=True)
    filter = traitlets.Unicode("").tag(sync=True)
    selection = traitlets.List(traitlets.Int()).tag(sync=True)
    baseline = traitlets.Int(0).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    tab = traitlets.Unicode("").tag(sync=True)  # "dashboard" | "layers"; "" until reports are given
    dashboard_range = traitlets.List(traitlets.Int()).tag(sync=True)  # [start, stop] passes that count; [] all
    dashboard = traitlets.Dict().tag(sync=True)  # reports/dashboard data of the Dashboard tab

    def __init__(
        self,
        reports: Sequence[Report] = (),
        labels: Sequence[str] | None = None,
        report_dirs: Sequence[str | None] | None = None,
        error: str = "",
        sources: Sequence[str | None] | None = None,
        structures: Sequence[str | os.PathLike[str] | None] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(error=error, **options)
        self.reports = list(reports)
        # per report: the model or layer information its layers pair through when names differ (None: its own)
        self.structures = list(structures) if structures is not None else [None] * len(self.reports)
        self.sources = list(sources) if sources is not None else [None] * len(self.reports)  # file of each report
        self._own_labels = labels is not None
        self.labels = list(labels) if labels is not None else report_labels(self.reports, self.sources)
        self.report_dirs = list(report_dirs) if report_dirs is not None else [None] * len(self.reports)
        self.errors: list[str] = []  # front-end errors, also shown in the widget
        self.designer_area = ipywidgets.Output()
        self._box: ipywidgets.VBox | None = None
        self._links = DesignerLinks(self._show_designer)
        self.designer: RunSource | None = None  # the designer this report was profiled from (the Profile panel)
        if self.tab not in TABS:
            self.tab = default_tab(self.reports)
        self._send_payload()
        self.observe(lambda _change: self._send_payload(), names=["baseline"])
        self.observe(lambda _change: self._send_dashboard(), names=["dashboard_range"])
        self.observe(lambda _change: self._select_on_canvas(), names=["selection"])
        self.on_msg(self._on_message)

    # -- data ---------------------------------------------------------------------------------------------------
    def _send_payload(self) -> None:
        if not self.reports:
            self.payload, self.data = {"version": 1, "reports": [], "compare": None}, b""
            return
        comparison = None
        if len(self.reports) > 1:
            if not 0 <= self.baseline < len(self.reports):
                self.error = f"baseline {self.baseline} is not one of the {len(self.reports)} reports"
                return
            comparison = compare(self.reports, self.labels, self.baseline, self.structures)
        payload, data = build_payload(self.reports, self.labels, comparison)
        with self.hold_sync():
            self._send_dashboard()
            self.data = data
            self.payload = payload

    def _send_dashboard(self) -> None:
        """The Dashboard tab over `dashboard_range`; a range outside the passes is refused in a notice and the
        range goes back to the last one shown."""
        try:
            self.dashboard = tab_data(self.reports, self.labels, self.dashboard_range)
        except ValueError as error:
            self.notice(f"dashboard: {error}", "error")
            shown = self.dashboard.get("range") if self.reports and len(self.reports) == 1 else None
            self.dashboard_range = list(shown) if shown else []

    def dashboard_panels(self, start: int | None = None, stop: int | None = None) -> Any:
        """The first report's dashboard (reports.dashboard.panels.Dashboard) over passes start..stop."""
        from dld_jupyter.reports.dashboard.panels import dashboard

        return dashboard(self.report, start, stop)

    def dashboard_csv(self, table: str = "ops", path: str | os.PathLike[str] | None = None) -> str | Path:
        """A Dashboard table ("op_types", "ops", "kernels") over `dashboard_range` as CSV (the tab's Export CSV
        writes the rows it shows); returns the text, or writes `path` and returns it."""
        from dld_jupyter.formats.atomic_write import atomic_write_text

        text = table_csv_text(self.report, table, self.dashboard_range)
        if path is None:
            return text
        atomic_write_text(path, text)
        return Path(path)

    @property
    def report(self) -> Report:
        """The first (or only) report."""
        if not self.reports:
            raise ValueError(f"no report is shown: {self.error or 'empty viewer'}")
        return self.reports[0]

    def rows(self, which: str = "all") -> list[int]:
        """Positions in the first report's layers: all, those matching the name filter, or the selected ones."""
        if which not in ROWS:
            raise ValueError(f"rows: {which!r} is not one of {ROWS}")
        if which == "filtered":
            return filter_by_name(self.report.layers, self.filter)
        if which == "selected":
            return sorted(self.selection)
        return list(range(len(self.report.layers)))

    def to_csv(self, path: str | os.PathLike[str] | None = None, rows: str = "all") -> str | Path:
        """The layer table as CSV (the same text the browser's Export button downloads for those rows).

        `rows`: "all", "filtered" (the name filter) or "selected". Returns the text, or writes `path` and returns it.
        """
        from dld_jupyter.reports.export import to_csv, write_csv

        layers = [self.report.layers[i] for i in self.rows(rows)]
        if path is None:
            return to_csv(self.report, layers, self.full_pass)
        return write_csv(self.report, path, layers, self.full_pass)

    def figures(self) -> dict[str, Any]:
        """Plotly figures (plain go.Figure, built as data) of the charts: latency and precision per layer type."""
        from dld_jupyter.widgets.report.report_figures import figures

        return figures(self.reports, self.labels)

    def compare_with(self, *sources: Report | str | os.PathLike[str]) -> None:
        """Add reports (Reports or report paths) to the comparison ("Compare with…" in the viewer); the baseline
        stays. Raises FileNotFoundError / ValueError naming the file that cannot be read; nothing changes then."""
        if not sources:
            raise ValueError("compare with: choose at least one report (.dld-report.json, trtexec or ORT profile)")
        if not self.reports:
            raise ValueError(f"compare with: this viewer shows no report ({self.error or 'empty viewer'})")
        loaded = []
        for source in sources:
            try:
                loaded.append(load_report(source))
            except (OSError, ValueError, ReportError) as error:
                raise ValueError(
                    f"compare with {os.fspath(source) if not isinstance(source, Report) else 'a report'}: "
                    f"{error}. Pick a .dld-report.json, a trtexec profile or an ONNX Runtime profile."
                ) from error
        self.reports += [r for r, _ in loaded]
        self.structures += [None] * len(loaded)
        self.report_dirs += [d for _, d in loaded]
        self.sources += [None if isinstance(s, Report) else os.fspath(s) for s in sources]
        if self._own_labels:
            self.labels += report_labels([r for r, _ in loaded], self.sources[-len(loaded) :])
        else:
            self.labels = report_labels(self.reports, self.sources)
        self._send_payload()

    # -- links --------------------------------------------------------------------------------------------------
    def _show_designer(self, designer: LiveDesigner) -> None:
        self.designer_area.append_display_data(designer)

    def _model_of(self, report: int) -> str:
        return model_of(self.reports[report], self.report_dirs[report])

    def _source_document(self, report: int) -> str | None:
        return source_document(self.reports[report])

    def live_designer(self, report: int = 0) -> LiveDesigner | None:
        """The designer open on this report's model now (never opens one): the linked designer, the live designer
        of the profiled document, or one showing the model file; None when none is."""
        linked = self.designer
        if report == 0 and linked is not None and registry.by_model_id(linked.model_id) is linked:  # still open
            return linked
        try:
            path: str | None = self._model_of(report)
        except LinkError:
            path = None
        return self._links.live(path, self._source_document(report))

    def open_nodes(self, nodes: Sequence[str], report: int = 0) -> LiveDesigner:
        """Open (or focus) the designer on the report's model and select `nodes`; returns the designer. A designer
        already open on it (the one profiled, the live one of the report's `source_document`) is used."""
        designer = self.live_designer(report)
        if designer is not None:
            return self._links.select(designer, nodes, reveal=True)
        return self._links.open(self._model_of(report), nodes, self._source_document(report))

    def _select_on_canvas(self) -> None:
        """Rows selected in the table: their layers' ONNX nodes selected on the open designer's canvas and brought
        into view (no designer is opened for a mere selection)."""
        if not self.reports or not self.selection:
            return
        try:
            designer = self.live_designer(0)
            if designer is None:
                return
            if loading(designer) is not None:  # its document is still being built: never block the comm handler
                self.notice("the designer's model is still loading: select the layers again once it has loaded")
                return
            layers = self.reports[0].layers
            wanted = [n for i in sorted(self.selection) if 0 <= i < len(layers) for n in layers[i].onnx_nodes]
            known = {node.name for node in designer.document.nodes()}
            names = list(dict.fromkeys(n for n in wanted if n in known))
            if names:
                self._links.select(designer, names)
        except Exception as error:  # shown in the viewer: a selection must never break the comm handler
            log.exception("report viewer: selecting on the canvas failed")
            self.notice(f"selecting the layers on the canvas failed: {type(error).__name__}: {error}", "error")

    def open_layer(self, position: int, report: int = 0) -> Any:
        """What clicking a layer's name does: select its source ONNX nodes in the designer."""
        layer = self.reports[report].layers[position]
        if not layer.onnx_nodes:
            raise LinkError(f"layer {layer.name!r} names no ONNX node")
        return self.open_nodes(layer.onnx_nodes, report)

    def notice(self, text: str, level: str = "info") -> None:
        self.send({"kind": "notice", "level": level, "text": text})

    def _on_message(self, _widget: Any, message: dict[str, Any], _buffers: Any) -> None:
        kind = message.get("kind")
        try:
            if kind == "open_nodes":
                self.open_nodes([str(n) for n in message.get("nodes", [])], int(message.get("report", 0)))
            elif kind == "request":
                self._answer(message)
            elif kind == "js_error":
                text = f"report viewer: {message.get('where', '')}: {message.get('message', '')}"
                self.errors.append(text)
                log.warning(text)
        except (LinkError, OSError, ValueError, IndexError) as error:
            self.notice(str(error), "error")
        except Exception as error:  # a designer failure must reach the user, not vanish in a comm handler
            log.exception("report viewer: %s failed", kind)
            self.notice(f"{kind} failed: {type(error).__name__}: {error}", "error")

    def _answer(self, message: dict[str, Any]) -> None:
        request, args = int(message.get("request", 0)), dict(message.get("args") or {})
        action = message.get("action")
        if action == "compare_with":
            try:
                self.compare_with(*[str(p) for p in args.get("paths") or []])
            except ValueError as error:
                self.send({"kind": "reply", **failed(request, str(error))})
                return
            self.send({"kind": "reply", **ok(request, {"reports": len(self.reports)})})
            return
        try:
            if action != "links":
                raise ValueError(f"report viewer: unknown request {action!r}")
            report, position = int(args.get("report", 0)), int(args.get("layer", 0))
            nodes = self.reports[report].layers[position].onnx_nodes
            data = self._links.menu(self._model_of(report), nodes)
        except (LinkError, OSError, ValueError, IndexError) as error:
            self.send({"kind": "reply", **failed(request, str(error))})
            return
        self.send({"kind": "reply", **ok(request, data)})

    # -- display: the viewer with the designers it opened below it ---------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if self._box is None:
            self._box = ipywidgets.VBox([self, self.designer_area])
        return self._box._repr_mimebundle_(**kwargs)


def _viewer(sources: Sequence[Report | str | os.PathLike[str]], **options: Any) -> ReportViewer:
    labels = options.pop("labels", None)
    structures = options.pop("structures", None)
    if structures is not None and len(structures) != len(sources):
        raise ValueError(f"{len(structures)} structures for {len(sources)} reports")
    try:
        loaded = [load_report(s) for s in sources]
    except TypeError:
        raise
    except Exception as error:  # shown in the widget: a bad path is the user's input, not a crash
        return ReportViewer(error=f"Cannot open the report: {error}", **options)
    reports = [r for r, _ in loaded]
    if labels is not None and len(labels) != len(reports):
        raise ValueError(f"{len(labels)} labels for {len(reports)} reports")
    paths = [None if isinstance(s, Report) else os.fspath(s) for s in sources]
    return ReportViewer(
        reports, labels=labels, report_dirs=[d for _, d in loaded], sources=paths, structures=structures, **options
    )


def show_report(report_or_path: Report | str | os.PathLike[str], **options: Any) -> ReportViewer:
    """The viewer for a Report, a .dld-report.json, a trtexec --exportProfile JSON or an ONNX Runtime profile.

    Options: height ("600px"), heat (heat colours, default on), full_pass (percentages of the full pass time),
    filter (initial name filter), tab ("dashboard", the default for GPU runs, or "layers"), dashboard_range
    ([start, stop] measured passes the dashboard aggregates).
    A path that cannot be opened gives a viewer that shows why.
    """
    check_keywords("show_report", options, ("height", "heat", "full_pass", "filter", "tab", "dashboard_range"))
    return _viewer([report_or_path], **options)


def compare_reports(*reports: Report | str | os.PathLike[str], baseline: int = 0, **options: Any) -> ReportViewer:
    """Several reports side by side (seed 001): summary per report, layers paired by name or through the networks'
    structure, differences against `baseline` (0-based; changeable in the viewer). Options: labels, height, heat,
    full_pass, filter, structures (per report the ONNX model or TensorRT layer information to pair through, None:
    the one the report names)."""
    check_keywords("compare_reports", options, ("labels", "height", "heat", "full_pass", "filter", "structures"))
    if len(reports) < 2:
        raise ValueError(f"compare_reports needs at least two reports, got {len(reports)}")
    if not 0 <= baseline < len(reports):
        raise ValueError(f"baseline {baseline} is not one of the {len(reports)} reports (0-based)")
    return _viewer(list(reports), baseline=baseline, **options)
