"""A wide result a run or a comparison made (a sweep's table and Pareto chart, a divergence's or a diff's table, the
analysis's popped-out Channel Inspector), as handed to whatever shows it: a JupyterLab tab beside the designer or
the Start Activity tab, else below the cell.

Why: these views are tables and charts that need the width of the page; in the designer's ~330 px dock the sweep
table's note column wrapped a word per line and the Pareto chart was cut. A designer tab's link (lab/
document_tabs.py) sets `open_results_tab` on the view it shows, as it sets `open_report_tab` for reports, and opens
the result in a main-area tab split beside it on the same kernel; `file` lets a tab whose kernel stopped build the
view again from disk (the sweep folder, the divergence table's JSON), "" when there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

KINDS = ("sweep", "divergence", "diff", "channels")


@dataclass(frozen=True)
class ResultsTab:
    """`view`: the live widget to show; `kind`: one of KINDS; `title`: the tab's label; `file`: see the docstring."""

    kind: str
    title: str
    file: str
    view: Any

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"results kind {self.kind!r} is not one of {list(KINDS)}")


ResultsOpener = Callable[[ResultsTab], bool]
"""Opens a result in a tab of its own; False when it cannot (the caller shows it below instead)."""
