"""A run made of runs (a sweep: one profile run per point), with the face of one run: `id`, `spec` (None),
`status`, `progress`, `logs`, `done`, `result`, `cancel()`, `wait()`, `on_end()` (run_end.py, as for `Run` and
`ThreadRun`), so the one run panel, the progress/cancel widget and the live runs registry follow it unchanged.

Why: a sweep was not a run; its form overrode the panel's run, cancel and wait, and it kept its own cancel registry
beside the runs it started. A group holds its members (`add`: the runs it started in this process; members that
run elsewhere, a Dask worker's, are counted by the subclass through `report`), cancels them all with itself, says
its progress as the share of its work that has ended and ends once, with one result, when `finish` is called.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.errors import FAILED
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.run_end import RunEnd
from dld_jupyter.activities.scheduler import announce
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.thread_run import RunHandle

CANCELLED = "cancelled"


class RunGroup(RunEnd):
    """See the module docstring. `what` names the group in the runs list ("sweep of resnet18")."""

    def __init__(
        self,
        what: str,
        on_progress: Callable[[Progress], None] | None = None,
        on_log: Callable[[LogLine], None] | None = None,
    ) -> None:
        super().__init__()
        self.id = uuid.uuid4().hex[:12]
        self.what = what
        self.spec: ActivitySpec | None = None  # many specs: its members have theirs
        self.on_progress, self.on_log = on_progress, on_log
        self.progress: Progress | None = None
        self.logs: list[LogLine] = []
        self.members: list[RunHandle] = []
        self.cancel_event = threading.Event()
        self.started_at: float | None = None
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def begin(self) -> None:
        """The group is under way: listed as running (the live runs registry is told now)."""
        if self._status is ActivityStatus.QUEUED:
            self._status = ActivityStatus.RUNNING
            self.started_at = time.monotonic()
            announce(self)

    def add(self, member: RunHandle) -> RunHandle:
        """A run of the group; cancelled at once when the group already is."""
        with self._lock:
            self.members.append(member)
        if self.cancelled:
            member.cancel()
        return member

    def cancel(self) -> None:
        """Cancel the group and every member run; `cancelling()` stops what the subclass has not started yet."""
        self.cancel_event.set()
        with self._lock:
            members = list(self.members)
        for member in members:
            with contextlib.suppress(Exception):  # one member failing to stop must not keep the others running
                member.cancel()
        self.cancelling()

    def command_line(self) -> CommandLine:
        """The `dld` command that runs the group again (a subclass that has one says it; none by default)."""
        return CommandLine((), (f"{self.what}: a group of runs that no one dld command runs",))

    def cancelling(self) -> None:
        """What else a cancel stops (queued work of an executor); nothing by default."""

    def log(self, level: str, message: str) -> None:
        line = LogLine(level, message)
        self.logs.append(line)
        if self.on_log is not None:
            with contextlib.suppress(Exception):  # a broken callback must not break the group
                self.on_log(line)

    def report(self, ended: int, total: int, phase: str) -> None:
        """Progress: `ended` of `total` parts have ended."""
        self.progress = Progress(ended / total if total else 1.0, phase)
        if self.on_progress is not None:
            with contextlib.suppress(Exception):
                self.on_progress(self.progress)

    def finish(self, error: str | None = None, artifacts: dict[str, str] | None = None) -> None:
        """End the group: CANCELLED once cancelled, FAILED with `error`, else SUCCEEDED."""
        took = time.monotonic() - (self.started_at or time.monotonic())
        if self.cancelled:
            status, kind, error = ActivityStatus.CANCELLED, CANCELLED, error or CANCELLED
        elif error is not None:
            status, kind = ActivityStatus.FAILED, FAILED
        else:
            status, kind = ActivityStatus.SUCCEEDED, None
        self.ended(ActivityResult(status, artifacts=dict(artifacts or {}), error=error, error_kind=kind,
                                  logs=list(self.logs), duration_s=took))
