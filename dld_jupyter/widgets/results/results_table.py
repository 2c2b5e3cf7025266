"""A table of a comparison's rows (js mirror: js/src/widgets/results/results_table.ts), shown where it has the
page's width: a JupyterLab tab split beside the designer (frontdoor/results_tab.py), or below the designer in a
notebook. The divergence table (divergence_table.py) and the diff table (diff_table.py) are built on it.

Why one widget: the divergence table was a 640 px box floating over the canvas it describes, the diff's removed
nodes a list in a 250 px legend (issue 42); both are rows of nodes, sortable, whose click focuses a node on the
designer's canvas. It opens in the kernel's order scrolled to `first_row` (highlighted); any column sorts in the
browser; a click on a row that names a node calls `on_focus(node)`. State the kernel knows: columns, rows, first row,
heading and summary (synced); the browser keeps the sort and the scroll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import traitlets

from dld_jupyter.widgets.widget_base import DldWidget


@dataclass(frozen=True)
class Column:
    """`numeric`: sorted as numbers; `descending`: the first click sorts largest first (a metric); `wrap`: long text
    (a node's path, what changed) that wraps at a readable width, every other column staying on one line."""

    key: str
    label: str
    numeric: bool = False
    descending: bool = False
    wrap: bool = False


class ResultsTable(DldWidget, bundle="results_table"):
    """See the module docstring. `kind` names its CSS classes (dld-<kind>-results, dld-<kind>-table); rows are dicts
    of cells by column key plus `node` (what a click focuses; None: not on this canvas), `mark` and `title`."""

    kind = traitlets.Unicode("").tag(sync=True)
    columns = traitlets.List(traitlets.Dict()).tag(sync=True)
    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    first_row = traitlets.Int(None, allow_none=True).tag(sync=True)
    heading = traitlets.Unicode("").tag(sync=True)
    summary = traitlets.Unicode("").tag(sync=True)
    keywords = ("layout",)

    def __init__(self, kind: str, columns: Sequence[Column], rows: list[dict[str, Any]], heading: str,
                 summary: str = "", first_row: int | None = None,
                 on_focus: Callable[[str], object] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_focus = on_focus
        self.focused: list[str] = []  # the nodes asked for, in order (what the clicks did)
        self.kind, self.columns, self.heading, self.summary = kind, [asdict(c) for c in columns], heading, summary
        self.set_trait("first_row", first_row)
        self.rows = rows
        self.on_msg(self._on_msg)

    @property
    def title(self) -> str:
        """The label of its tab."""
        return self.heading

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "focus" and isinstance(content.get("node"), str):
            self.focus(content["node"])

    def focus(self, node: str) -> None:
        """Focus `node` on the designer's canvas (a row's click)."""
        self.focused.append(node)
        if self.on_focus is not None:
            self.on_focus(node)
