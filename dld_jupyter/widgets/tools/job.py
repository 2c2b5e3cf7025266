"""The busy part every tool dialog shares: the run panel's progress widget (widgets/runs/progress.py: spinning wheel,
progress bar and phase, Cancel), the error line, and the work itself as a `ThreadRun` (activities/thread_run.py),
the same run interface as a profile or an engine export, listed in the live runs registry.

Why a thread: FP16 conversion, sanitize and their output comparison take seconds to minutes on real models; run on
the kernel's main thread they would freeze the notebook and Cancel could never be clicked. The work gets a
`progress(fraction, message)` callback and a `CancelToken` (transforms/progress.py); what it returns is handed to
`finish` back on the kernel's main thread (its loop is taken when the job starts), because `finish` may edit the
open document, and the canvas must get its patches in the order the kernel handles its messages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.errors import ActivityError
from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.thread_run import RunHandle, ThreadRun, Work
from dld_jupyter.document import DocumentError
from dld_jupyter.formats.html_text import tag
from dld_jupyter.frontdoor.soon import on_loop, running_loop
from dld_jupyter.transforms.progress import CancelToken
from dld_jupyter.widgets.runs.progress import RunProgress

__all__ = ["Job", "Work", "error_html"]


def error_html(text: str) -> str:
    return tag("div", text, class_="dld-tool-error", style="color:#b91c1c") if text else ""


class Job(RunProgress):
    """Progress bar + phase + Cancel of a `ThreadRun`; `start(work, finish)` runs `work` on the run's thread and
    `finish(result)` on the kernel's main thread; a failure or a cancel is shown in `error` (the dialog places it)
    and `failed(text)` runs. The run is listed in the live runs registry like a profile or an export."""

    def __init__(self) -> None:
        super().__init__(percent=False)
        self.cancel_button.add_class("dld-tool-cancel")
        self.error = w.HTML("")
        self.current: RunHandle | None = None
        self.done = threading.Event()
        self.done.set()
        self.add_class("dld-tool-job")
        self.layout.display = "none"

    @property
    def running(self) -> bool:
        return not self.done.is_set()

    @property
    def token(self) -> CancelToken | None:
        return self.current.token if isinstance(self.current, ThreadRun) else None

    def start(
        self, what: str, work: Work, finish: Callable[[Any], None], failed: Callable[[str], None] | None = None
    ) -> None:
        if self.running:
            self.show_error(f"{what} is already running: cancel it first.")
            return
        from dld_jupyter.frontdoor.runs import track  # when a run starts: a designer makes its job on a first view

        run = ThreadRun(what, work, on_progress=self.show)
        self._watch(run, lambda ended: ended.value, finish, failed, "")
        track().register(run)
        run.start()

    def watch(
        self,
        what: str,
        start: Callable[[Callable[[Any], None]], RunHandle],
        value: Callable[[Any], Any],
        finish: Callable[[Any], None],
        failed: Callable[[str], None] | None = None,
    ) -> None:
        """A run of the activity worker on this job: `start(on_progress)` starts it (listed in the live runs by
        the engine), `value(run)` reads what it made (raising what it ended with) for `finish`."""
        if self.running:
            self.show_error(f"{what} is already running: cancel it first.")
            return
        self.done = threading.Event()
        try:
            run = start(self.show)
        except BaseException:
            self.done.set()
            raise
        self._watch(run, value, finish, failed, f"{what}: ")

    def _watch(self, run: Any, value: Callable[[Any], Any], finish: Callable[[Any], None],
               failed: Callable[[str], None] | None, said_as: str) -> None:
        """Follow `run`; `said_as` heads its error (a worker's says only "cancelled" or the failure)."""
        loop = running_loop()  # the kernel's, when started from a click
        self.current = run
        self.done = threading.Event()
        self.show_error("")
        self.layout.display = ""
        self.follow(None)
        self.follow(run)

        def end(ended: Any) -> None:
            result = ended.result
            try:
                returned = getattr(ended, "value", None)  # a cancelled tool returns too
                if result is not None and (result.ok or returned is not None):
                    finish(value(ended) if result.ok else returned)
                    self.ended(result)
                else:
                    said = said_as + (result.error if result is not None and result.error else "failed")
                    self._failed(said, failed, ended.status)
            except (ActivityError, DocumentError, OSError, ValueError) as error:  # applying the result failed
                self._failed(str(error), failed, ActivityStatus.FAILED)
            finally:
                self.cancel_button.disabled = True
                self.done.set()

        run.on_end(lambda ended: on_loop(loop, lambda: end(ended)))

    def _failed(self, text: str, failed: Callable[[str], None] | None, status: ActivityStatus) -> None:
        self.progress.bar_style = "warning" if status is ActivityStatus.CANCELLED else "danger"
        self.phase.value = "cancelled" if status is ActivityStatus.CANCELLED else "failed"
        self.show_error(text)
        if failed is not None:
            failed(text)

    def log(self, level: str, line: str) -> None:
        """A line of the work's own output, kept in the run's log (a user tool's stdout and stderr)."""
        if isinstance(self.current, ThreadRun):  # a worker's run logs what its worker says
            self.current.log(level, line)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has finished (scripts and tests; in a kernel the finish needs the loop running)."""
        return self.done.wait(timeout)

    def show_error(self, text: str) -> None:
        self.error.value = error_html(text)
