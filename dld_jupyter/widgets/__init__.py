"""The notebook front door: canvas, designer, editor panels and report viewer widgets (browser halves in
js/src/widgets/, same folder names).

Importing any widget installs the designer opener in the registry of open designers, so that a report viewer can
open a model's designer without importing the designer module (that import closed a circle through the profile
panel); the designer itself is imported only when one is opened. It also installs the viewers the artifact policy
(frontdoor/artifacts.py) shows a run's report and layer information with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dld_jupyter.frontdoor.artifacts import ARTIFACTS
from dld_jupyter.frontdoor.designers import LiveDesigner, registry
from dld_jupyter.frontdoor.run_source import RunSource

if TYPE_CHECKING:
    from dld_jupyter.widgets.engine.engine_designer import EngineDesigner
    from dld_jupyter.widgets.report.report_viewer import ReportViewer


def _open_designer(path: str) -> LiveDesigner:
    from dld_jupyter.widgets.designer.designer import open_designer

    return open_designer(path)


registry.set_opener(_open_designer)


def _report_viewer(path: str, source: RunSource | None) -> ReportViewer:
    """The report viewer; linked to the designer the run came from, its layer selection selects on that canvas."""
    from dld_jupyter.widgets.report.report_viewer import show_report

    viewer = show_report(path)
    if source is not None:
        viewer.designer = source
    return viewer


def _engine_graph(path: str, _source: RunSource | None) -> EngineDesigner:
    from dld_jupyter.widgets.engine.engine_designer import open_engine

    return open_engine(path)


ARTIFACTS.set_viewer("report", _report_viewer)
ARTIFACTS.set_viewer("layer_info", _engine_graph)
