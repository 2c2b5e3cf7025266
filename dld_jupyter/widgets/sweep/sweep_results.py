"""A sweep's results, wide: the table (one row per point, updated while the sweep runs), the labelled Pareto chart
and the comparison of chosen points. The Sweep form in the designer's dock keeps the form, the bar and the log; this
view opens beside it, in a JupyterLab tab of its own (frontdoor/results_tab.py), or below the designer or the form
in a notebook, where it has the width of the page.

Why: in the ~330 px dock the note column wrapped a word per line, the Plotly chart's right side was cut, and the
comparison squeezed under the form. `dld.sweep_results(folder)` shows a finished (or resumed) sweep the same way.
State: everything here is the kernel's (ipywidgets); the browser keeps only the table's scroll.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.sweep.manifest import DONE
from dld_jupyter.formats.html_text import tag
from dld_jupyter.frontdoor.results_tab import ResultsTab
from dld_jupyter.widgets.closing import replace_children
from dld_jupyter.widgets.sweep.sweep_view import REFRESH_S, SweepView, open_sweep
from dld_jupyter.widgets.widget_base import DldVBox


class SweepResults(DldVBox, css="dld-sweep-results"):
    """See the module docstring; `view` is the sweep (running or ended) it shows."""

    def __init__(self, view: SweepView) -> None:
        self.view = view
        self.heading = w.HTML("")
        self.table = w.HTML("", layout=w.Layout(width="100%"))
        self.chart = w.HTML("", layout=w.Layout(width="100%"))
        self.chosen = w.SelectMultiple(options=[], description="Points", rows=6,
                                       layout=w.Layout(width="auto", min_width="360px"))
        self.compare_button = w.Button(description="Compare", icon="columns", disabled=True,
                                       tooltip="The chosen points' reports side by side (two or more)")
        self.compare_button.on_click(lambda _b: self.compare())
        self.error = w.HTML("")
        self.comparison = w.VBox([], layout=w.Layout(width="100%"))
        self._lock = threading.Lock()
        self._last = 0.0
        self._pending: threading.Timer | None = None
        super().__init__([self.heading, self.table, self.chart,
                          w.HBox([self.chosen, self.compare_button], layout=w.Layout(align_items="flex-start")),
                          self.error, self.comparison], layout=w.Layout(width="100%"))
        self.refresh()
        if view.sweep is not None:
            view.sweep.on_change(lambda _sweep: self._changed())

    @property
    def title(self) -> str:
        return f"Sweep {self.view.folder.name}"

    def tab(self) -> ResultsTab:
        """This view as a tab's content (its folder reopens it after the kernel stopped)."""
        return ResultsTab("sweep", self.title, str(self.view.folder), self)

    def refresh(self) -> None:
        """Show the table, the chart and the finished points again (from the sweep's manifest)."""
        with self._lock:
            self._last = time.monotonic()
            self._pending = None
            self.heading.value = tag("b", self.title, title=str(self.view.folder))
            self.table.value = self.view.table_html()
            self.chart.value = self.view.chart_html()
            done = [row["id"] for row in self.view.rows() if row["state"] == DONE]
            if list(self.chosen.options) != done:
                kept = tuple(point for point in self.chosen.value if point in done)
                self.chosen.options = done
                self.chosen.value = kept
            self.compare_button.disabled = len(done) < 2

    def _changed(self) -> None:
        """A point changed: refresh at most every REFRESH_S, the last change always shown."""
        wait = self._last + REFRESH_S - time.monotonic()
        sweep = self.view.sweep
        if wait <= 0 or (sweep is not None and sweep.done):
            self.refresh()
            return
        with self._lock:
            if self._pending is None:
                self._pending = threading.Timer(wait, self.refresh)
                self._pending.daemon = True
                self._pending.start()

    def compare(self) -> Any:
        """The chosen points' reports in the report viewer's comparison, below the chart; None if it cannot."""
        try:
            viewer = self.view.compare(*self.chosen.value)
        except ValueError as error:
            self.error.value = tag("div", str(error), class_="dld-run-error", style="color:#b91c1c")
            return None
        self.error.value = ""
        replace_children(self.comparison, [viewer])
        return viewer


def sweep_results(folder: str | os.PathLike[str]) -> SweepResults:
    """`dld.sweep_results`: the results view of a sweep folder (what its tab shows)."""
    return SweepResults(open_sweep(folder))
