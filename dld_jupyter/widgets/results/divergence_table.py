"""A divergence run's per-node table (js mirror: js/src/widgets/results/divergence_table.ts), shown where it has the
page's width: a JupyterLab tab split beside the designer (frontdoor/results_tab.py), or below the designer in a
notebook. It was a 640 px box floating over the canvas, on the graph it describes (issue 42).

Every compared output in execution order, opening at the first row past the tolerance (highlighted); any column
sorts in the browser; a click on a row focuses that node on the designer's canvas (its groups expand, its tab comes
forward), through `on_focus`. State the kernel knows: the rows, metric, tolerance, headline and source (synced);
the browser keeps the sort and the scroll.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traitlets

from dld_jupyter.model_compare import Divergence
from dld_jupyter.widgets.canvas.overlays.divergence import Side, first_row, table_rows
from dld_jupyter.widgets.widget_base import DldWidget


class DivergenceTable(DldWidget, bundle="divergence_table"):
    """The table of `divergence` as the `side` canvas names its nodes; `on_focus(node)` runs on a row's click."""

    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    first_row = traitlets.Int(None, allow_none=True).tag(sync=True)
    metric = traitlets.Unicode("").tag(sync=True)
    tolerance = traitlets.Float(0.0).tag(sync=True)
    headline = traitlets.Unicode("").tag(sync=True)
    source = traitlets.Unicode("").tag(sync=True)
    keywords = ("layout",)

    def __init__(self, divergence: Divergence, side: Side = "candidate", source: str = "",
                 on_focus: Callable[[str], object] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.divergence, self.side, self.on_focus = divergence, side, on_focus
        self.set_trait("first_row", first_row(divergence))
        self.metric, self.tolerance, self.headline = divergence.metric, divergence.tolerance, divergence.headline()
        self.source = source
        self.rows = table_rows(divergence, side)
        self.focused: list[str] = []  # the nodes asked for, in order (what a click did)
        self.on_msg(self._on_msg)

    @property
    def title(self) -> str:
        return f"Divergence: {self.source}" if self.source else "Divergence"

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "focus" and isinstance(content.get("node"), str):
            self.focus(content["node"])

    def focus(self, node: str) -> None:
        """Focus `node` on the designer's canvas (a row's click)."""
        self.focused.append(node)
        if self.on_focus is not None:
            self.on_focus(node)
