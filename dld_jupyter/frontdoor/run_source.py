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
from typing import Any, Protocol, Union

from dld_jupyter.document import Document
from dld_jupyter.frontdoor.designers import LiveDesigner
from dld_jupyter.frontdoor.operation_target import ShowsTools


class RunSource(LiveDesigner, ShowsTools, Protocol):
    """The live designer a run came from (the notebook Designer is one); its dock shows "+ New connection…"."""

    def show_heat(self, report_or_path: Any, metric: str = "time") -> object:
        """Colour the canvas by a report's layer times (raises what the report's reading raised)."""
        ...


RunInput = Union[str, "os.PathLike[str]", Document, RunSource]
"""What a front door runs on: a model path, a Document, or the live designer showing one."""


def run_source(model: RunInput) -> RunSource | None:
    """The designer among what a front door was handed; None for a path or a Document."""
    return None if isinstance(model, (str, os.PathLike, Document)) else model
