"""What a sweep manifest may say, checked when it is loaded: it is JSON a user (or anyone who can write the folder)
may edit, and it decides where `--resume` writes.

Why: a point `id` of `/tmp/x` or `../../x` made `--resume` write `<id>.dld-report.json` outside the folder; a
`report` of `/etc/hostname` with state `done` counted as a finished point (and `dld report sweep` read it);
duplicate ids were accepted; `points: 5`, `batch: ["x"]` or 100,000 nested brackets ended in internal errors
(issue 36). Every refusal is a SpecError (exit 2 in the CLI) naming the manifest and the point.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError

SAFE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+=-]{0,238}\Z")  # one path component, never "." or ".."
GRID_TEXT = ("models", "provider", "precision", "targets")
POINT_TEXT = ("id", "model", "provider", "precision", "target")


def _what(value: Any) -> str:
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 60 else shown[:57] + '...'}"


def check_data(data: Any, path: Path) -> None:
    """Raise SpecError when the decoded manifest `data` (read from `path`) is not one this version wrote."""
    def refuse(why: str) -> SpecError:
        return SpecError(f"{path}: {why}. Fix or remove the manifest (a new sweep writes a new one).")

    grid, settings, points = data.get("grid"), data.get("settings"), data.get("points")
    if not isinstance(grid, dict):
        raise refuse(f'"grid" is {_what(grid)}; expected an object')
    for key in (*GRID_TEXT, "batch"):
        values = grid.get(key)
        if not isinstance(values, list):
            raise refuse(f'grid "{key}" is {_what(values)}; expected a list')
        expect_int = key == "batch"
        for value in values:
            if (isinstance(value, bool) or not isinstance(value, int)) if expect_int else not isinstance(value, str):
                raise refuse(f'grid "{key}" holds {_what(value)}; expected {"integers" if expect_int else "strings"}')
    if not isinstance(settings, dict):
        raise refuse(f'"settings" is {_what(settings)}; expected an object')
    gpus = settings.get("gpus")
    if gpus is not None and (not isinstance(gpus, list) or not all(type(g) is int for g in gpus)):
        raise refuse(f'settings "gpus" is {_what(gpus)}; expected a list of GPU indices or null')
    if not isinstance(points, list):
        raise refuse(f'"points" is {_what(points)}; expected a list of points')
    seen: set[str] = set()
    for index, point in enumerate(points):
        _check_point(point, index, seen, refuse)


def _check_point(point: Any, index: int, seen: set[str], refuse: Any) -> None:
    if not isinstance(point, dict):
        raise refuse(f"point {index} is {_what(point)}; expected an object")
    pid = point.get("id")
    if not isinstance(pid, str) or not SAFE_ID.match(pid) or pid in (".", ".."):
        raise refuse(f"point {index} has the id {pid!r}: an id is one file name (letters, digits, _ . + = -), "
                     "never a path")
    if pid in seen:
        raise refuse(f"point {pid} appears twice")
    seen.add(pid)
    for key in POINT_TEXT:
        if not isinstance(point.get(key), str):
            raise refuse(f'point {pid}: "{key}" is {_what(point.get(key))}; expected a string')
    batch = point.get("batch")
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise refuse(f'point {pid}: "batch" is {_what(batch)}; expected an integer >= 1')
    report = point.get("report")
    if report is not None and (not isinstance(report, str) or Path(report).name != report
                               or report in ("", ".", "..") or "\\" in report):
        raise refuse(f'point {pid}: "report" is {report!r}; a report is a file name inside the sweep folder')
