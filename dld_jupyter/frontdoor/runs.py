"""The live runs: every Run started below the front doors, registered in one place that a runs list and a
dashboard read (`find`, `list`, `listed`, `cancel`, `watch`), whichever front door started it.

Every worker run comes in through the process's scheduler (`activities.scheduler`: dld.profile and dld.export_engine,
the panels, the CLI, sweep points, analysis, divergence), which tells its watchers; a run group (`activities.group`:
a sweep) is told when it starts, its runs as each is submitted; the Tools dialogs' batch transforms and user tools
are `ThreadRun`s, which their job registers itself. `track()` subscribes the registry to the scheduler's
`watch_runs` once, so each entry point calls `track()` before it starts work and its runs are listed from then on.
Ended runs are kept (newest last) up to `KEEP_ENDED`, so a long-lived kernel does not keep every log it ever
produced. `listed()` is what the runs lists show (run_rows.py makes their rows: the sidebar's Runs section,
`dld.runs()`), newest first; `watch(listener)` tells a list when a run is registered or ends (on the thread where
that happened).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from dld_jupyter.activities.scheduler import watch_runs
from dld_jupyter.activities.thread_run import RunHandle

KEEP_ENDED = 50


class RunRegistry:
    """Runs by id, in the order they were registered."""

    def __init__(self, keep_ended: int = KEEP_ENDED) -> None:
        self.keep_ended = keep_ended
        self._lock = threading.Lock()
        self._runs: dict[str, RunHandle] = {}
        self._listed: dict[str, float] = {}  # run id -> wall-clock time it was registered (its start, to a user)
        self._watchers: list[Callable[[], None]] = []

    def register(self, run: RunHandle) -> RunHandle:
        with self._lock:
            self._runs[run.id] = run
            self._listed.setdefault(run.id, time.time())
            ended = [key for key, known in self._runs.items() if known.done]
            for key in ended[: max(0, len(ended) - self.keep_ended)]:
                del self._runs[key]
                self._listed.pop(key, None)
        run.on_end(lambda _run: self._changed())
        self._changed()
        return run

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` whenever a run is registered or ends; returns the function that unsubscribes."""
        self._watchers.append(listener)
        return lambda: self._watchers.remove(listener) if listener in self._watchers else None

    def _changed(self) -> None:
        for listener in list(self._watchers):
            with contextlib.suppress(Exception):  # a broken list must not break the run that ended
                listener()

    def listed(self) -> list[tuple[RunHandle, float | None]]:
        """Each run with the wall-clock time it was registered (its start, to a user), newest first."""
        with self._lock:
            return [(run, self._listed.get(run.id)) for run in reversed(self._runs.values())]

    def find(self, run_id: str) -> RunHandle:
        """The run with this id; LookupError naming the known ids otherwise."""
        with self._lock:
            run = self._runs.get(run_id)
            known = list(self._runs)
        if run is None:
            raise LookupError(f"run {run_id!r} is not a live or recent run; known runs: {known}")
        return run

    def list(self, live_only: bool = False) -> list[RunHandle]:
        """Registered runs, oldest first; `live_only`: those queued or running."""
        with self._lock:
            runs = list(self._runs.values())
        return [run for run in runs if not (live_only and run.done)]

    def cancel(self, run_id: str) -> RunHandle:
        """Cancel the run with this id (nothing happens to one that has ended)."""
        run = self.find(run_id)
        run.cancel()
        return run


RUNS = RunRegistry()
_tracking = threading.Lock()
_tracked = False


def track() -> RunRegistry:
    """Register every run started from now on (idempotent); the registry front doors read."""
    global _tracked
    with _tracking:
        if not _tracked:
            watch_runs(RUNS.register)
            _tracked = True
    return RUNS
