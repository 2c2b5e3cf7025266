"""What a front door does with each named artifact of a finished run, in one place instead of in each panel.

- `report`: shown, and its heat put on the designer the run came from. In a JupyterLab designer tab the report
  opens in its own tab beside it (the tab's `open_report_tab`); elsewhere the installed report viewer is built
  and linked to that designer, so its layer selection selects on the canvas.
- `layer_info`: opens as an engine graph (the installed engine-graph viewer).
- `model`: opens in a new designer (the registry of open designers builds it).
- `engine`, `tensors`, `divergence` (a per-node table), `node_data`: nothing opens them here; they are listed with
  their path.
A front door with tabs of its own (the JupyterLab runs list) passes `tab`, which opens a report, layer information
or model in a tab (the report viewer, the engine graph, a designer) before the viewers here are tried.

This layer imports no widget: the widgets package installs the viewers (`ARTIFACTS.set_viewer`) when it is
imported, as it installs the designer opener. Nothing here raises into a run's waiting thread: a viewer that
fails leaves its error on the `Opened` entry, which the front door shows.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from dld_jupyter.activities.result import ARTIFACTS as NAMES
from dld_jupyter.frontdoor.designers import registry
from dld_jupyter.frontdoor.run_source import RunSource

Viewer = Callable[[str, RunSource | None], Any]  # (path, the designer the run came from or None) -> a widget
Tab = Callable[[str, str], bool]  # (artifact name, path) -> True when a front door opened it in a tab of its own
SHOWN_BY_VIEWER = ("report", "layer_info")
TABBED = ("report", "layer_info", "model")  # what a front door with tabs (the JupyterLab sidebar) may open in one


@dataclass
class Opened:
    """What acting on one artifact gave: `shown` (a widget to show, or None), a `note` saying where it went, the
    `error` when it could not be shown, and `heat` (shows the report's heat on the designer again) for a report."""

    name: str
    path: str
    shown: Any = None
    note: str = ""
    error: str | None = None
    heat: Callable[[], str | None] | None = None


class ArtifactActions:
    """The artifact policy; `act` applies it to a result's artifacts."""

    def __init__(self) -> None:
        self._viewers: dict[str, Viewer] = {}

    def set_viewer(self, name: str, viewer: Viewer) -> None:
        """Install what shows a `report` or a `layer_info` file (the widgets package does)."""
        if name not in SHOWN_BY_VIEWER:
            raise ValueError(f"artifact {name!r}: only {list(SHOWN_BY_VIEWER)} are shown by an installed viewer")
        self._viewers[name] = viewer

    def act(
        self, artifacts: Mapping[str, str], source: RunSource | None = None, skip: Collection[str] = (),
        tab: Tab | None = None,
    ) -> list[Opened]:
        """Act on each artifact (in the order of the artifact names), except those in `skip`; `source` is the
        designer the run came from (None: a path or a document); `tab` opens a report, layer information or model
        in a tab of its own first (the JupyterLab runs list: a report in the report viewer's tab, layer information
        as an engine graph's, a model in a designer tab), the viewers and designers here when it cannot."""
        unknown = sorted(set(artifacts) - set(NAMES))
        if unknown:
            raise ValueError(f"artifacts: {unknown} are not artifact names; they are {list(NAMES)}")
        done = []
        for name in NAMES:
            path = artifacts.get(name)
            if path is not None and name not in skip:
                done.append(self._one(name, str(path), source, tab))
        return done

    def _one(self, name: str, path: str, source: RunSource | None, tab: Tab | None = None) -> Opened:
        try:
            if tab is not None and name in TABBED and tab(name, path):
                heat = _heat(source, path) if name == "report" else None
                return Opened(name, path, None, "opened in its own tab", heat() if heat else None, heat)
            if name == "report":
                return self._report(path, source)
            if name == "layer_info":
                return Opened(name, path, self._view(name, path, source), "opened as an engine graph")
            if name == "model":
                return Opened(name, path, registry.open(path), "opened in a new designer")
        except Exception as error:  # shown by the front door, never raised into the run's thread
            return Opened(name, path, error=f"{name} {path} could not be opened: {error}")
        return Opened(name, path, note="written")

    def _report(self, path: str, source: RunSource | None) -> Opened:
        heat = _heat(source, path)
        opener = source.open_report_tab if source is not None else None
        if opener is not None and opener(path):
            return Opened("report", path, None, "opened in its own tab", heat() if heat else None, heat)
        viewer = self._view("report", path, source)
        return Opened("report", path, viewer, "", heat() if heat else None, heat)

    def _view(self, name: str, path: str, source: RunSource | None) -> Any:
        viewer = self._viewers.get(name)
        if viewer is None:
            raise LookupError(f"no {name} viewer is installed in this kernel (import dld_jupyter.widgets)")
        return viewer(path, source)


def _heat(source: RunSource | None, path: str) -> Callable[[], str | None] | None:
    """Puts the report's heat on the designer it came from; None when the run came from no designer."""
    if source is None:
        return None
    designer = source

    def heat() -> str | None:
        try:
            designer.show_heat(path)
        except Exception as error:  # a ReportError is no ValueError: every failure is said, not raised
            return f"The heat could not be shown on the canvas: {error}"
        return None

    return heat


ARTIFACTS = ArtifactActions()
"""The kernel's one artifact policy; front doors act through it."""
