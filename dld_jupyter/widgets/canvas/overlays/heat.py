"""The heat overlay (js mirror: overlays/heat.ts): a report's layer times on a canvas.
`designer.show_heat(report_or_path, metric="time"|"share")` and `.clear_heat()` land here.

The kernel computes every element's value once (reports/heat.py) and sends it as one compact "set" message
(heat_payload.py); the browser colours, scales, draws the legend and the tooltips, and re-applies the heat to the
elements a patch or an expanded group brings. A view that connects later (the notebook re-rendered, a page reload)
gets the heat after its snapshot (Overlays.hello). The legend's metric switch and its close button come back as the
actions "metric" and "closed", so `designer.heat` always says what the user sees.

A report describes the model it was profiled from: after an edit, the nodes it added, removed or changed (an FP16
conversion replaces them all) are stale, shown without a time and saying why, while the others keep theirs; when no
node keeps one, the heat is cleared (the strip says so) instead of a legend of "0.0 µs … 0.0 µs".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from dld_jupyter.document import Event, NodesAdded, NodesChanged, NodesRemoved
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.heat import Heat, check_metric, heat_of
from dld_jupyter.widgets.canvas.overlays.base import Overlay
from dld_jupyter.widgets.canvas.overlays.heat_payload import HeatMetric, HeatViewMessage, heat_message, node_names
from dld_jupyter.widgets.canvas.protocol import OverlayMessage

if TYPE_CHECKING:
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas


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


def _metric(metric: str) -> HeatMetric:
    return "share" if check_metric(metric) == "share" else "time"


class HeatOverlay(Overlay):
    """The heat shown on one model canvas (`heat` is None when none is)."""

    name: ClassVar[str] = "heat"
    label: ClassVar[str] = "Heat"
    again: ClassVar[str] = "profile the model again for a new heat"

    def __init__(self, canvas: GraphCanvas) -> None:
        super().__init__(canvas)
        self.graph_canvas = canvas
        self.heat: Heat | None = None
        self.metric: HeatMetric = "time"
        self.source = ""
        self.stale: set[str] = set()  # node ids added, removed or changed since the heat was shown
        self._timed: set[str] = set()  # node ids with a time on the canvas now

    def show(self, report_or_path: Report | str | os.PathLike[str], metric: str = "time") -> Heat:
        checked = _metric(metric)
        report, source = load_report(report_or_path)
        self.heat, self.metric, self.source = heat_of(report), checked, source
        self.stale = set()
        self._timed = {node for node, name in node_names(self.graph_canvas.document).items()
                       if self.heat.layers_of.get(name)}
        self.strip_add()  # the strip first: the browser knows whether to draw it when its state comes
        found = self.state()
        if found is not None:
            self.send(*found)
        return self.heat

    def clear(self) -> None:
        self.heat = None
        self.stale, self._timed = set(), set()
        self.send(self.message("clear"))
        self.strip_remove()

    def model_changed(self, events: Sequence[Event]) -> bool:
        """The nodes an edit added, removed or changed lose their time; False (cleared) when no node keeps one.
        Sent again only when a node that had a time lost it (an edit of an untimed node, a weight: nothing to send,
        so a big model's edit does not pay for the heat)."""
        touched: set[str] = set()
        for event in events:
            if isinstance(event, NodesAdded | NodesRemoved | NodesChanged):
                touched.update(event.node_ids)
        self.stale |= touched
        if not touched & self._timed:
            return True
        self._timed -= touched
        if not self._timed:
            return False
        found = self.state()
        if found is not None:
            self.send(*found)
        return True

    def state(self) -> tuple[OverlayMessage, list[bytes]] | None:
        if self.heat is None:
            return None
        canvas = self.graph_canvas
        view = canvas.view  # waits for a loading model: its groups come with the document
        message, data = heat_message(self.heat, canvas.document, view.grouping, self.metric, self.source, self.stale)
        return message, [data]

    def receive(self, message: OverlayMessage, buffers: list[bytes]) -> None:
        if message["action"] == "metric":
            metric = cast(HeatViewMessage, message).get("metric")
            if metric in ("time", "share"):
                self.metric = _metric(str(metric))
