"""The sweep in a notebook: `dld.sweep(...)` returns a SweepView that shows one row per point and updates itself
while the sweep runs (an output display updated in place, at most every half second), and is the sweep viewer
once it has ended: rows with filters, CSV, the labelled latency-vs-throughput Pareto chart (SVG, every point
inside the plot, reports/sweep_chart.py; `pareto_figure()` gives it as a Plotly figure too), and
`compare(id, id, ...)` opening the chosen points in the report viewer's comparison.
Every name in the table goes through the one escaping helper (`formats.html_text`).
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.sweep import Manifest, Sweep, load_manifest
from dld_jupyter.activities.sweep.manifest import DONE
from dld_jupyter.formats.atomic_write import atomic_write_text
from dld_jupyter.formats.html_text import Html, join, tag
from dld_jupyter.frontdoor.run_source import RunInput
from dld_jupyter.reports.compare import colours
from dld_jupyter.reports.sweep_chart import pareto_chart, point_labels
from dld_jupyter.reports.sweep_table import pareto_ids, sweep_csv, sweep_rows

REFRESH_S = 0.5
SHOWN = (("id", "point"), ("state", "state"), ("median_ms", "median ms"), ("p90_ms", "p90 ms"),
         ("throughput", "items/s"), ("peak_memory_mb", "peak MB"), ("reason", "note"))


_NOWRAP = "white-space:nowrap;padding:2px 8px"
_NOTE = "min-width:24em;white-space:normal;padding:2px 8px"  # a reason reads as a sentence, never a word per line


def _cell(value: object) -> str:
    if value is None:
        return "–"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class SweepView:
    """A running or finished sweep as a table; see the module docstring."""

    def __init__(self, manifest: Manifest, sweep: Sweep | None = None) -> None:
        self.manifest, self.sweep = manifest, sweep
        self._handle: Any = None
        self._last = 0.0
        self._pending: threading.Timer | None = None
        if sweep is not None:
            sweep.on_change(lambda _sweep: self._refresh())

    @property
    def folder(self) -> Path:
        return self.manifest.folder

    def wait(self, timeout: float | None = None) -> bool:
        """True once every point has ended (a finished sweep: at once)."""
        return True if self.sweep is None else self.sweep.wait(timeout) is not None

    def cancel(self) -> None:
        if self.sweep is not None:
            self.sweep.cancel()

    def rows(self, **filters: Any) -> list[dict[str, Any]]:
        """One row per point; keyword filters by column (`provider="cuda"`, `state=["done", "failed"]`)."""
        return sweep_rows(self.manifest, **filters)

    def csv(self, path: str | None = None, **filters: Any) -> str:
        """The table as CSV text, also written to `path` when given."""
        text = sweep_csv(self.rows(**filters))
        if path:
            atomic_write_text(path, text)
        return text

    def pareto_figure(self, **filters: Any) -> Any:
        """Latency (median ms) against throughput (items/s), one colour per model, the Pareto front as a line."""
        import plotly.graph_objects as go

        rows = [r for r in self.rows(**filters) if r["state"] == DONE]
        models = sorted({r["model"] for r in rows})
        figure = go.Figure()
        label_of = dict(zip((r["id"] for r in rows), point_labels(rows), strict=True))
        for model, colour in zip(models, colours(len(models)), strict=True):
            mine = [r for r in rows if r["model"] == model]
            figure.add_scatter(
                name=model, mode="markers+text", marker={"color": colour, "size": 10}, cliponaxis=False,
                text=[label_of[r["id"]] for r in mine], textposition="top center",
                x=[r["median_ms"] for r in mine], y=[r["throughput"] for r in mine],
                customdata=[[r["id"], r["batch"], r["provider"], r["precision"]] for r in mine],
                hovertemplate="%{customdata[0]}<br>batch %{customdata[1]}, %{customdata[2]}, %{customdata[3]}"
                "<br>%{x:.4f} ms, %{y:.1f} items/s<extra></extra>",
            )
        front = sorted((r for r in rows if r["id"] in set(pareto_ids(rows))), key=lambda r: r["median_ms"])
        figure.add_scatter(name="Pareto front", mode="lines", line={"dash": "dot", "color": "#555"},
                           x=[r["median_ms"] for r in front], y=[r["throughput"] for r in front], hoverinfo="skip")
        figure.update_layout(title="Latency vs throughput", xaxis_title="median latency (ms)",
                             yaxis_title="throughput (items/s)", template="plotly_white", height=420,
                             autosize=True, margin={"l": 60, "r": 60, "t": 60, "b": 50})
        return figure

    def dashboard(self) -> Any:
        """The dashboard of the sweep: one column per finished point (reports.dashboard.many.Table; `.rows`,
        `.filter`, `.sort`; reports.dashboard.table_csv for CSV)."""
        from dld_jupyter.reports.dashboard.many import sweep_dashboard

        return sweep_dashboard(self.manifest)

    def gpus(self) -> Any:
        """The GPUs view of the sweep: one row per GPU its points used (none for a CPU-only sweep)."""
        from dld_jupyter.reports.dashboard.many import sweep_gpus

        return sweep_gpus(self.manifest)

    def compare(self, *point_ids: str, **options: Any) -> Any:
        """The chosen points' reports side by side in the report viewer (two or more finished points)."""
        from dld_jupyter.widgets.report.report_viewer import compare_reports

        rows = {r["id"]: r for r in self.rows()}
        missing = [p for p in point_ids if p not in rows or not rows[p]["report"]]
        if missing or len(point_ids) < 2:
            done = [r["id"] for r in rows.values() if r["report"]]
            raise ValueError(f"compare: give two or more finished points; not finished or unknown: {missing}; "
                             f"finished points: {done}")
        options.setdefault("labels", list(point_ids))
        return compare_reports(*(rows[p]["report"] for p in point_ids), **options)

    # -- display -------------------------------------------------------------------------------------------------
    def table_html(self) -> Html:
        """The table: one row per point, Pareto points starred. Numbers and states never wrap and the note column
        keeps a readable width (it wrapped a word per line in the dock); a narrow place scrolls the table sideways."""
        rows = self.rows()
        front = set(pareto_ids(rows))
        head = tag("tr", *(tag("th", label, style=_NOWRAP) for _, label in SHOWN))
        body = [tag("tr", *(tag("td", _cell(row[key]) + (" ★" if key == "id" and row["id"] in front else ""),
                                style=_NOTE if key == "reason" else _NOWRAP) for key, _ in SHOWN),
                    class_=f"dld-sweep-{row['state'].replace(' ', '-')}")
                for row in rows]
        counts = ", ".join(f"{n} {state}" for state, n in self.manifest.counts().items() if n)
        caption = tag("caption", f"Sweep {self.folder}: {counts} (★ Pareto front)", style="text-align:left")
        table = tag("table", caption, head, Html(join(body)), class_="dld-sweep")
        return tag("div", table, class_="dld-sweep-scroll", style="overflow-x:auto;max-width:100%")

    def chart_html(self) -> Html:
        """The labelled latency-vs-throughput chart of the finished points (reports/sweep_chart.py), as SVG; empty
        while no point has finished."""
        chart = pareto_chart(self.rows())
        return tag("div", chart.svg(), class_="dld-pareto-scroll", style="overflow-x:auto;max-width:100%") \
            if chart is not None else Html("")

    def _repr_html_(self) -> str:
        return str(join([self.table_html(), self.chart_html()]))

    def _ipython_display_(self) -> None:
        shown: Any = importlib.import_module("IPython.display")
        self._handle = shown.display(shown.HTML(self._repr_html_()), display_id=True)

    def _refresh(self) -> None:
        """Update the shown table, at most every REFRESH_S (the last change always lands)."""
        if self._handle is None:
            return
        wait = self._last + REFRESH_S - time.monotonic()
        if wait > 0 and not (self.sweep is not None and self.sweep.done):
            if self._pending is None:
                self._pending = threading.Timer(wait, self._flush)
                self._pending.daemon = True
                self._pending.start()
            return
        self._flush()

    def _flush(self) -> None:
        shown: Any = importlib.import_module("IPython.display")
        self._pending, self._last = None, time.monotonic()
        self._handle.update(shown.HTML(self._repr_html_()))


def start(models: RunInput | Sequence[RunInput], **options: Any) -> SweepView:
    """`dld.sweep`: start (or complete) a sweep of model files (paths, or the files of documents and designers)
    and return its live view."""
    from dld_jupyter.activities.sweep import start_sweep

    names = [models] if isinstance(models, (str, os.PathLike)) or not isinstance(models, Sequence) else models
    paths = [_file_of(model) for model in names]
    sweep = start_sweep(paths, **options)
    return SweepView(sweep.manifest, sweep)


def _file_of(model: RunInput) -> str:
    path = ModelRef.of(model).user_file
    if path is None:
        raise SpecError("models: a model that was never saved has no file to sweep; save it first")
    return path


def open_sweep(folder: str | os.PathLike[str]) -> SweepView:
    """`dld.sweep_report`: the viewer of a sweep folder (finished or not)."""
    return SweepView(load_manifest(Path(folder)))
