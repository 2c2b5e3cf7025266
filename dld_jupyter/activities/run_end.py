"""How every run says it has ended, whoever runs it: `status`, `done`, `result`, `on_end(listener)`, `ended(result)`.

Shared by the activity `Run` (a worker process, run.py) and the `ThreadRun` (work on a thread of the kernel,
thread_run.py), so a runs list, a dashboard and the progress widget read both the same way. A listener that
raises never breaks the run; `ended` records the first outcome only.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from dld_jupyter.activities.result import ActivityResult, ActivityStatus


class RunEnd:
    """The ending half of a run; subclasses call `super().__init__()` and `ended(result)` once it is over."""

    def __init__(self) -> None:
        self._status = ActivityStatus.QUEUED
        self._result: ActivityResult | None = None
        self._finished = threading.Event()
        self._listeners: list[Callable[[Any], None]] = []
        self.ended_at: float | None = None

    @property
    def status(self) -> ActivityStatus:
        return self._status

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    @property
    def result(self) -> ActivityResult | None:
        return self._result

    def on_end(self, listener: Callable[[Any], None]) -> None:
        """Call `listener(run)` once the run has ended (at once if it has)."""
        self._listeners.append(listener)
        if self.done:
            listener(self)

    def wait(self, timeout: float | None = None) -> ActivityResult | None:
        """The result once the run has ended, or None when `timeout` passes first."""
        self._finished.wait(timeout)
        return self._result

    def ended(self, result: ActivityResult) -> bool:
        """Record the outcome and tell the listeners; False when the run had already ended."""
        if self._finished.is_set():  # not `done`: a subclass may say done a little before (a sweep's last change)
            return False
        self._result, self._status, self.ended_at = result, result.status, time.monotonic()
        self._finished.set()
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):
                listener(self)
        return True
