"""Heat on the designer's canvas: `designer.show_heat(report_or_path, metric="time"|"share")`, `.clear_heat()`.

The kernel computes every element's value once (reports/heat.py) and sends it as one compact `heat` message
(widgets/canvas/heat_patch.py); the browser colours, scales, draws the legend and the tooltips, and re-applies the
heat to the elements a patch or an expanded group brings. A new view of the canvas (the notebook re-rendered) gets
the heat again after its snapshot. The legend's metric switch and its close button come back as `heat_metric` and
`heat_closed`, so `designer.heat` always says what the user sees.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.heat import Heat, check_metric, heat_of
from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from dld_jupyter.widgets.canvas.heat_patch import heat_message


def load_report(report_or_path: Report | str | os.PathLike[str]) -> tuple[Report, str]:
    """(the report, a label for the legend): a Report, a .dld-report.json or another profile `open_report` reads."""
    if isinstance(report_or_path, Report):
        return report_or_path, report_or_path.summary.model or "report"
    if not isinstance(report_or_path, (str, os.PathLike)):
        raise TypeError(f"show_heat: expected a Report or a report path, got {type(report_or_path).__name__}")
    from dld_jupyter.reports.open import open_report

    path = Path(report_or_path)
    if not path.is_file():
        raise FileNotFoundError(f"show_heat: the report {os.fspath(report_or_path)!r} does not exist")
    return open_report(path), path.name


class CanvasHeat:
    """The heat shown on one canvas (None when none is)."""

    def __init__(self, canvas: GraphCanvas) -> None:
        self.canvas = canvas
        self.heat: Heat | None = None
        self.metric = "time"
        self.source = ""
        canvas.on_msg(self._on_msg)

    @property
    def shown(self) -> bool:
        return self.heat is not None

    def show(self, report_or_path: Report | str | os.PathLike[str], metric: str = "time") -> Heat:
        check_metric(metric)
        report, source = load_report(report_or_path)
        self.heat, self.metric, self.source = heat_of(report), metric, source
        self._send()
        return self.heat

    def clear(self) -> None:
        self.heat = None
        self.canvas.send({"kind": "heat_clear"})

    def _send(self) -> None:
        if self.heat is None:
            return
        view = self.canvas.view  # waits for a loading model: its groups come with the document
        message, data = heat_message(self.heat, self.canvas.document, view.grouping, self.metric, self.source)
        self.canvas.send(message, [data])

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("kind")
        if kind == "hello" and self.heat is not None:
            self._send()  # after the canvas's own handler sent the snapshot
        elif kind == "heat_closed":
            self.heat = None
        elif kind == "heat_metric" and content.get("metric") in ("time", "share"):
            self.metric = str(content["metric"])
