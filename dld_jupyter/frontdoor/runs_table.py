"""`dld.runs()`: the runs list in a notebook — the sidebar's Runs section as a table, one row per run, newest first.

A `RunsTable` is a list of `RunRow` (run_rows.py), so `dld.runs()[0].command_line` is the command that reproduces
the newest run and `find(id)` one by id. In a notebook it shows as an HTML table (names, paths and errors are text,
escaped by formats/html_text.py); elsewhere as plain text. It is a snapshot: call `dld.runs()` again to see later
progress.
"""

from __future__ import annotations

import os
import time

from dld_jupyter.formats.html_text import Html, code, join, small, tag
from dld_jupyter.frontdoor.run_rows import RunRow

COLUMNS = ("kind", "model", "where", "state", "median", "started", "took", "command")
CELL = "text-align:left;vertical-align:top"  # JupyterLab right-aligns table cells: a command reads left to right


def median_text(row: RunRow) -> str:
    return f"{row.median_ms:.3f}\u00a0ms" if row.median_ms is not None else ""  # never "0.173 / ms" in a narrow cell


def state_text(row: RunRow) -> str:
    if row.live and row.fraction is not None:
        return f"{row.state} {100 * row.fraction:.0f}%" + (f" ({row.phase})" if row.phase else "")
    return row.state


def started_text(row: RunRow) -> str:
    return time.strftime("%H:%M:%S", time.localtime(row.started)) if row.started is not None else ""


def took_text(row: RunRow) -> str:
    if row.duration_s is None:
        return ""
    seconds = row.duration_s
    return f"{seconds:.1f}\u00a0s" if seconds < 60 else f"{int(seconds // 60)}\u00a0min {seconds % 60:02.0f}\u00a0s"


def where_text(row: RunRow) -> str:
    return " ".join(part for part in (row.runtime, row.target, row.device) if part)


class RunsTable(list[RunRow]):
    """The runs, newest first (see the module docstring)."""

    def find(self, run_id: str) -> RunRow:
        """The row of the run with this id; LookupError naming the ids listed."""
        for row in self:
            if row.id == run_id:
                return row
        raise LookupError(f"run {run_id!r} is not listed; the runs are {[row.id for row in self]}")

    def __repr__(self) -> str:
        if not self:
            return "No runs yet in this kernel (profile, export, sweep, diverge or analyse to start one)."
        lines = []
        for row in self:
            head = f"{row.id}  {row.kind:<13} {state_text(row):<18} {median_text(row):>12}  {row.model}"
            lines.append(head.rstrip())
            if row.command:
                lines.append(f"    $ {row.command}")
            lines.extend(f"    ({note})" for note in row.unsaid)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        if not self:
            return str(small(repr(self)))
        head = tag("tr", *(tag("th", name, style=CELL) for name in COLUMNS))
        body = [self._row(row) for row in self]
        return str(tag("table", tag("thead", head), tag("tbody", *body), class_="dld-runs-table"))

    @staticmethod
    def _row(row: RunRow) -> Html:
        notes = [tag("div", small(note)) for note in row.unsaid]
        command = join([code(row.command) if row.command else "", *notes])
        error = tag("div", small(row.error)) if row.error and row.state != "succeeded" else ""
        model = tag("span", os.path.basename(row.model), title=row.model)
        cells = (row.kind, model, where_text(row), join([state_text(row), error]), median_text(row),
                 started_text(row), took_text(row), command)
        return tag("tr", *(tag("td", cell, style=CELL) for cell in cells), data_run=row.id)
