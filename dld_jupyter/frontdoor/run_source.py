"""Whoever started a run, as the run's artifacts need it back: `RunSource`, the live designer a Profile or Export
panel, `dld.profile(designer)` or a sweep form was opened from.

Why: a finished run's report puts its heat on that designer's canvas, links its layers to that designer's nodes,
opens in a tab beside it (a JupyterLab designer tab), and "+ New connection…" opens in its dock. Each of these asked
the object it was handed with `getattr(source, "show_heat")`, `getattr(source, "open_report_tab")`,
`getattr(source, "tools_panel")`, typed `Any`, so a rename broke them silently. A front door is handed a model path,
a Document or a designer (`RunInput`); `run_source` picks the designer out, with no attribute probing (asking a
loading designer for its document would wait for the load).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Protocol, Union, runtime_checkable

from dld_jupyter.document import Document
from dld_jupyter.frontdoor.designers import LiveDesigner
from dld_jupyter.frontdoor.operation_target import ShowsTools
from dld_jupyter.frontdoor.results_tab import ResultsOpener, ResultsTab


class RunSource(LiveDesigner, ShowsTools, Protocol):
    """The live designer a run came from (the notebook Designer is one); its dock shows "+ New connection…"."""

    def show_heat(self, report_or_path: Any, metric: str = "time") -> object:
        """Colour the canvas by a report's layer times (raises what the report's reading raised)."""
        ...

    def show_results(self, results: ResultsTab) -> str:
        """Show a wide result (a sweep's table and chart): in a tab beside the designer ("tab", its
        `open_results_tab`), else below it ("below")."""
        ...


RunInput = Union[str, "os.PathLike[str]", Document, RunSource]
"""What a front door runs on: a model path, a Document, or the live designer showing one."""


def run_source(model: RunInput) -> RunSource | None:
    """The designer among what a front door was handed; None for a path or a Document."""
    return None if isinstance(model, (str, os.PathLike, Document)) else model


@runtime_checkable
class TabbedRuns(Protocol):
    """A view that starts runs on a model file and is no designer (the Start Activity dialog). Shown in a JupyterLab
    tab, its runs' reports open in a tab beside it, as a designer tab's do, and its Browse… asks JupyterLab's file
    dialog: the tab's link (lab/document_tabs.py) sets the hooks and clears them when it closes."""

    open_report_tab: Callable[[str], bool] | None  # None: a report shows in the view
    open_results_tab: ResultsOpener | None  # None: a sweep's results show in the view

    def allow_browse(self, pick: Callable[[], None] | None) -> None:
        """Offer Browse… (`pick` opens the file dialog, whose choice comes back through `set_model`); None hides it."""
        ...

    def set_model(self, path: str) -> None:
        """The model file chosen in the file dialog (a path as the kernel sees it)."""
        ...
