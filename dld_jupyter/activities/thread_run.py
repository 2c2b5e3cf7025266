"""A run of in-process work (a batch transform, a user tool) with the interface of an activity `Run`.

Why: profiling and engine export run in a worker process behind `Run`; FP16 conversion, sanitize, tensor
conversion and user tools run on a thread of the kernel with a `CancelToken` (transforms/progress.py). Before this
module each had its own job object, so a runs list, a dashboard and the progress/cancel widget had to know both. A
`ThreadRun` gives such work the same face: `id`, `status`, `progress`, `logs`, `done`, `result`, `cancel()`,
`wait()`, `on_end()` (the ending from run_end.py, as for `Run`), so the live runs registry lists it and one
progress/cancel widget (widgets/runs/) shows it.

The work is called as `work(progress, token)`; `progress(fraction, message)` updates `progress` (a None fraction
keeps the last one) and logs the message. What the work returns is kept as `value`; `Cancelled` from the token (or
a return once the token is set) ends the run CANCELLED, any other exception FAILED, with its text as the error
(the exception itself kept as `exception`, so a front door that waits can raise it with its own type).
Listeners run on the work's thread.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.errors import FAILED
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.run_end import RunEnd
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.transforms.progress import Cancelled, CancelToken
from dld_jupyter.transforms.progress import Progress as ReportProgress

Work = Callable[[ReportProgress, CancelToken], Any]
CANCELLED = "cancelled"


class RunHandle(Protocol):
    """What front doors read of any run, in a worker process (`Run`) or on a thread (`ThreadRun`)."""

    id: str
    progress: Progress | None
    logs: list[LogLine]

    @property
    def spec(self) -> ActivitySpec | None:
        """What the run does (None: in-process work, named by its `what`)."""

    @property
    def status(self) -> ActivityStatus: ...

    @property
    def done(self) -> bool: ...

    @property
    def result(self) -> ActivityResult | None: ...

    def cancel(self) -> None: ...

    def wait(self, timeout: float | None = None) -> ActivityResult | None: ...

    def on_end(self, listener: Callable[[Any], None]) -> None: ...

    def command_line(self) -> CommandLine:
        """The `dld` command that runs it again from a shell (empty argv and why, when none does)."""


class ThreadRun(RunEnd):
    """In-process work as a run; see the module docstring. `start()` runs it on a daemon thread."""

    def __init__(
        self,
        what: str,
        work: Work,
        on_progress: Callable[[Progress], None] | None = None,
        on_log: Callable[[LogLine], None] | None = None,
        command: CommandLine | None = None,
    ) -> None:
        super().__init__()
        self.id = uuid.uuid4().hex[:12]
        self.what, self.work = what, work
        self.command = command  # the `dld` command doing the same work, when the starter knows one
        self.spec: ActivitySpec | None = None  # no activity spec: in-process work, named by `what`
        self.on_progress, self.on_log = on_progress, on_log
        self.token = CancelToken()
        self.progress: Progress | None = None
        self.logs: list[LogLine] = []
        self.value: Any = None
        self.exception: BaseException | None = None  # what the work raised: a blocking front door raises it again
        self.started_at: float | None = None

    def start(self) -> ThreadRun:
        if self._status is ActivityStatus.QUEUED:
            self._status = ActivityStatus.RUNNING
            self.started_at = time.monotonic()
            threading.Thread(target=self._main, name=f"dld-job-{self.what}", daemon=True).start()
        return self

    def command_line(self) -> CommandLine:
        return self.command or CommandLine((), (f"{self.what}: in-process work that no dld command runs",))

    def cancel(self) -> None:
        """Ask the work to stop: the token is set and the work unwinds at its next check."""
        self.token.cancel()

    def log(self, level: str, message: str) -> None:
        line = LogLine(level, message)
        self.logs.append(line)
        if self.on_log is not None:
            with contextlib.suppress(Exception):  # a broken callback must not break the run
                self.on_log(line)

    def report(self, fraction: float | None, message: str) -> None:
        """The `progress(fraction, message)` the work is given."""
        last = self.progress.fraction if self.progress is not None else 0.0
        self.progress = Progress(max(0.0, min(1.0, fraction)) if fraction is not None else last, message)
        self.log("info", message)
        if self.on_progress is not None:
            with contextlib.suppress(Exception):
                self.on_progress(self.progress)

    def _main(self) -> None:
        try:
            self.value = self.work(self.report, self.token)
        except Cancelled as stop:
            self.exception = stop
            self._finish(ActivityStatus.CANCELLED, str(stop), CANCELLED)
        except Exception as error:  # the work's failure is the run's, shown by whoever shows the run
            self.exception = error
            self._finish(ActivityStatus.FAILED, str(error) or type(error).__name__, FAILED)
        else:  # a work that returns once the token is set (a user tool that was ended) ended cancelled
            if self.token.cancelled:
                self._finish(ActivityStatus.CANCELLED, f"{self.what}: cancelled", CANCELLED)
            else:
                self._finish(ActivityStatus.SUCCEEDED, None, None)

    def _finish(self, status: ActivityStatus, error: str | None, kind: str | None) -> None:
        took = time.monotonic() - (self.started_at or time.monotonic())
        self.ended(ActivityResult(status, error=error, error_kind=kind, logs=list(self.logs), duration_s=took))
