"""Kernel side of the sidebar's Runs section (js/src/lab/runs.ts): this kernel's live and past runs, kept current
over the sidebar's comm (kernel_sidebar.py), with Cancel and Open.

Why here: the runs list is the seed's Inference Run Logger, a sidebar window, so it rides the sidebar's one comm
per kernel (no server, no port: it works on a remote JupyterHub as the palette does). The rows are the runs
registry's (frontdoor/run_rows.py), the same `dld.runs()` shows; they are sent whole when a run starts or ends and
every second while one is live (progress), and not at all while nothing changes.
Opening an artifact goes through the kernel's one artifact policy (frontdoor/artifacts.py) with this comm as its
tab: a report opens in the report viewer's tab, layer information as an engine graph, a model in a designer, each
by its path relative to the folder the Jupyter server shows (`root`, which the browser sends with runs_watch; a
file outside it is refused with the notebook call that shows it); a report and layer information open on this
kernel, so the sidebar still lists its runs when their tab is in front; a sweep's folder opens in the file browser.

Messages (same names in js/src/lab/messages.ts):
  browser → kernel: runs_watch{root}, run_cancel{id}, run_open{id, name, point}
  kernel → browser: runs{rows}, open_file{artifact, file, kernel_dir}
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any

from dld_jupyter.frontdoor.artifacts import ARTIFACTS
from dld_jupyter.frontdoor.run_rows import RunRow, rows
from dld_jupyter.frontdoor.runs import track

TICK_S = 1.0  # how often a live run's progress is sent
SETTLE_S = 0.05  # a burst of starts and ends within this is one message
MESSAGES = ("runs_watch", "run_cancel", "run_open")


class RunsFeed:
    """The Runs section of one sidebar connection: sends the rows, runs its Cancel and Open requests.

    Rows are sent from a timer thread, not the kernel's event loop: a cell that blocks in `dld.profile` or
    `dld.sweep(...).wait()` keeps the loop busy for the whole run, and its progress should still move in the list
    (ipykernel sends comm messages from any thread). Cancel and Open are requests of the browser, which the kernel
    reads between cells: while a cell blocks, interrupting the kernel is what stops its run."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self._unwatch: Callable[[], None] | None = None
        self._lock = threading.Lock()  # one push at a time, in order
        self._timer: threading.Timer | None = None
        self._root = ""  # the Jupyter server's root folder as the browser names it ("~/work" or absolute)

    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        if kind == "runs_watch":
            self._root = str(message.get("root") or "")
            if self._unwatch is None:
                self._unwatch = track().watch(lambda: self._arm(SETTLE_S))
            self._push()
        elif kind == "run_cancel":
            track().cancel(str(message["id"]))
        elif kind == "run_open":
            self._open(str(message["id"]), str(message["name"]), message.get("point"))
        else:
            raise ValueError(f"unknown runs message kind {kind!r}")

    def close(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
        self._unwatch = None
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = None

    def _arm(self, delay: float) -> None:
        """Push after `delay` unless a push is scheduled already (a start or end during a live run's tick waits for
        that tick, at most a second)."""
        with self._lock:
            if self._timer is not None or self._unwatch is None:
                return
            self._timer = threading.Timer(delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
        with contextlib.suppress(Exception):  # the comm closed under the timer: nothing to tell, nothing to print
            self._push()

    def _push(self) -> None:
        if self._unwatch is None:
            return
        with self._lock:
            listed = rows()
            self._send({"kind": "runs", "rows": [row.to_json() for row in listed]})
        if any(row.live for row in listed):
            self._arm(TICK_S)

    def _open(self, run_id: str, name: str, point: object) -> None:
        row = _find(rows(), run_id)
        if isinstance(point, str) and point:
            row = _find(list(row.points), point)
        path = row.artifacts.get(name)
        if path is None:
            raise ValueError(f"run {run_id}: no {name!r} artifact; it has {sorted(row.artifacts)}")
        if name == "folder":
            self._tab(name, path)
            return
        (opened,) = ARTIFACTS.act({name: path}, tab=self._tab)
        if opened.error:
            raise ValueError(opened.error)
        if opened.shown is None and opened.note == "written":
            raise ValueError(f"{name} {path}: nothing opens this kind of file here; its path is in the row")

    def _tab(self, name: str, path: str) -> bool:
        """Ask the browser to open `path` in a tab on this kernel (or the file browser); ValueError when the server
        cannot reach it. `kernel_dir` is this kernel's working folder under the root, which kernel paths start from."""
        root = os.path.abspath(os.path.expanduser(self._root)) if self._root else os.getcwd()
        file, here = _under(os.path.abspath(path), root), _under(os.getcwd(), root)
        if file is None:
            call = "dld.sweep_report" if name == "folder" else "dld.report" if name == "report" else "dld.open"
            raise ValueError(f"{os.path.abspath(path)} is outside the folder JupyterLab shows ({root}); show it from "
                             f"a notebook with {call}({os.path.abspath(path)!r})")
        self._send({"kind": "open_file", "artifact": name, "file": file, "kernel_dir": here or ""})
        return True


def _under(path: str, root: str) -> str | None:
    """`path` relative to `root` with / separators (a server path), None when it is not under `root`."""
    relative = os.path.relpath(path, root)
    if relative == ".." or relative.startswith(".." + os.sep):
        return None
    return "" if relative == "." else relative.replace(os.sep, "/")


def _find(listed: list[RunRow], run_id: str) -> RunRow:
    for row in listed:
        if row.id == run_id:
            return row
    raise ValueError(f"run {run_id!r} is no longer listed (only the newest ended runs are kept)")
