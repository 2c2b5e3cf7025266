"""Several runs at once, at most one running per (target, device): two profiles on one GPU would time each other.

`submit(spec or Run)` queues a Run and returns it at once; a run starts when no other run of its target holds its device
("cpu", "cuda:0": `ActivitySpec.device_key`), in submission order per device, and runs on other devices or targets
go on at the same time. Cancelling a queued run takes it out of the queue; the next one starts when a run ends,
however it ends.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from dld_jupyter.activities.engine import announce, execute
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.spec import ActivitySpec

Slot = tuple[str, str]  # (target name, device)


class Scheduler:
    """Queues per (target, device); `execute` is the engine's (a test may pass its own)."""

    def __init__(self, execute: Callable[[Run], ActivityResult] = execute) -> None:
        self._execute = execute
        self._lock = threading.RLock()
        self._queues: dict[Slot, deque[Run]] = {}
        self._running: dict[Slot, Run] = {}
        self._runs: list[Run] = []

    def submit(self, spec_or_run: ActivitySpec | Run) -> Run:
        """Queue a spec (a Run on the local target) or a Run made with its target and callbacks; it starts as soon
        as its (target, device) is free."""
        run = announce(spec_or_run if isinstance(spec_or_run, Run) else Run(spec_or_run))
        slot = self.slot(run)
        with self._lock:
            self._runs.append(run)
            self._queues.setdefault(slot, deque()).append(run)
        run.on_end(self._ended)
        self._advance(slot)
        return run

    @staticmethod
    def slot(run: Run) -> Slot:
        return (run.target.name, run.device)

    def runs(self) -> list[Run]:
        """Every run submitted here, in submission order."""
        with self._lock:
            return list(self._runs)

    def running(self) -> list[Run]:
        with self._lock:
            return list(self._running.values())

    def _advance(self, slot: Slot) -> None:
        with self._lock:
            if slot in self._running:
                return
            queue = self._queues.get(slot, deque())
            while queue and queue[0].done:  # cancelled while queued
                queue.popleft()
            if not queue:
                return
            run = queue.popleft()
            self._running[slot] = run
        run.start(self._execute)

    def _ended(self, run: Run) -> None:
        slot = self.slot(run)
        with self._lock:
            if self._running.get(slot) is run:
                del self._running[slot]
            elif run in self._queues.get(slot, ()):
                self._queues[slot].remove(run)
        self._advance(slot)
