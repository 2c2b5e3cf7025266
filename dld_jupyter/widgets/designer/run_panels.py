"""The Designer's panels in its dock (Profile, Tools dialogs, Export TensorRT Engine) and where their wide results
go: a finished profile's report and a sweep's table and Pareto chart go below the designer, the width of the cell,
or into a JupyterLab tab split beside the designer's (`open_report_tab`, `open_results_tab`, set by the tab's link,
lab/document_tabs.py), never into the ~330 px dock, where a sweep table's note column wrapped a word per line.

A mixin of Designer (designer.py), as CompareActions is, so the designer module stays one concept; what it needs of
the designer is declared below with its type.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Protocol

import ipywidgets as w

from dld_jupyter.frontdoor.results_tab import ResultsOpener, ResultsTab
from dld_jupyter.widgets.closing import replace_children

if TYPE_CHECKING:
    from dld_jupyter.frontdoor.run_source import RunSource
    from dld_jupyter.widgets.designer.dock import SideDock

    class _Designer(RunSource, Protocol):
        """What the panels are handed: the designer itself, with its boxes."""

        reports: w.Box
        profiling: w.Box
        tools: w.Box
        side_dock: SideDock


class RunPanels:
    """Designer methods that open the dock's run panels and show their results."""

    reports: w.Box  # below the designer: a profile's report, a sweep's results (notebook)
    profiling: w.Box  # in the dock: the Profile or Export panel
    tools: w.Box  # in the dock: a Tools dialog, the Sweep form
    side_dock: SideDock
    open_results_tab: ResultsOpener | None

    def profile_panel(self: _Designer, run: bool = False, **settings: Any) -> Any:
        """Show the profiling panel (every ONNX Runtime option, progress, cancel, then the report) below."""
        from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook

        panel = profile_in_notebook(self, run=run, **settings)
        # the form in the dock; the report, wide, below the designer (or in its own tab in JupyterLab)
        panel.children = tuple(part for part in panel.children if part is not panel.report_area)
        replace_children(self.reports, [panel.report_area])
        replace_children(self.profiling, [panel])
        self.side_dock.reveal()
        return panel

    def tools_panel(self, kind: str, **settings: Any) -> Any:
        """Show a Tools dialog above the canvas (frontdoor/tools.py: the menu, FP16, sanitize, convert tensors,
        custom tools, a user tool's run), replacing the one shown; returns it."""
        from dld_jupyter.widgets.tools import open_tool

        panel = open_tool(self, kind, **settings)
        replace_children(self.tools, [panel])
        self.side_dock.reveal()
        return panel

    def export_engine_panel(self: _Designer, **settings: Any) -> Any:
        """Show the Export TensorRT Engine panel (every seed option, the dry run's trtexec line) below."""
        from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel

        panel = ExportEnginePanel(self, **settings)
        replace_children(self.profiling, [panel])
        self.side_dock.reveal()
        return panel

    def show_results(self, results: ResultsTab) -> str:
        """A wide result (a sweep's table and Pareto chart, a divergence table): in a JupyterLab tab split beside
        this designer's ("tab"), else below the designer, the width of the cell ("below"), never in the dock."""
        opener = self.open_results_tab
        if opener is not None and opener(results):
            return "tab"
        # one result of each kind below: a new sweep's replaces the last sweep's, a profile's report stays
        last = self._below.get(results.kind)
        self._below[results.kind] = results.view
        replace_children(self.reports, [*(shown for shown in self.reports.children if shown is not last), results.view])
        return "below"

    @functools.cached_property
    def _below(self) -> dict[str, Any]:
        """The result of each kind shown below the designer."""
        return {}
