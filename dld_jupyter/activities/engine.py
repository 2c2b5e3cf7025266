"""Run activities in a separate worker process: progress and logs stream back, cancel works, crashes are reported.

The caller (a Jupyter kernel, the CLI) never runs the runtime itself, so a segfault or an OOM kill of the worker
becomes a failed ActivityResult with the signal named, never the caller's death. On success exactly one report
file appears at the spec's report path: the worker writes a private partial file, the target renames it.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO

from dld_jupyter.activities.cache import SettingsStore
from dld_jupyter.activities.errors import FAILED, ActivityError
from dld_jupyter.activities.protocol import decode
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target, WorkerProcess
from dld_jupyter.activities.targets.local import LocalTarget

ProgressCallback = Callable[[Progress], None]
LogCallback = Callable[[LogLine], None]

TERMINATE_GRACE_S = 5.0  # time for the worker to unwind (reset GPU clocks) before SIGKILL
CRASHED = "crashed"
CANCELLED = "cancelled"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Run:
    """One activity run; `execute` blocks until the worker is gone and everything is cleaned up."""

    def __init__(
        self,
        spec: ActivitySpec,
        on_progress: ProgressCallback | None,
        on_log: LogCallback | None,
        target: Target | None,
        remember: bool,
    ) -> None:
        self.spec = spec.resolved()
        self.target: Target = target or LocalTarget()
        self.on_progress, self.on_log, self.remember = on_progress, on_log, remember
        self.cancel_event = threading.Event()
        self.pid: int | None = None
        self.progress: Progress | None = None
        self.logs: list[LogLine] = []
        self._done_report: str | None = None
        self._error: tuple[str, str] | None = None  # (kind, message) sent by the worker

    def _log(self, level: str, message: str) -> None:
        line = LogLine(level, message.rstrip("\n"))
        self.logs.append(line)
        if self.on_log is not None:
            with contextlib.suppress(Exception):  # a broken callback must not break the run
                self.on_log(line)

    def _read_messages(self, stream: IO[str]) -> None:
        for line in stream:
            message = decode(line)
            if message is None:
                self._log("stdout", line)
            elif message.type == "progress":
                self.progress = Progress(float(message.data.get("fraction", 0.0)), str(message.data.get("phase", "")))
                if self.on_progress is not None:
                    with contextlib.suppress(Exception):
                        self.on_progress(self.progress)
            elif message.type == "log":
                self._log(str(message.data.get("level", "info")), str(message.data.get("message", "")))
            elif message.type == "done":
                self._done_report = str(message.data.get("report", ""))
            elif message.type == "error":
                self._error = (str(message.data.get("kind", FAILED)), str(message.data.get("message", "")))

    def _read_stderr(self, stream: IO[str]) -> None:
        for line in stream:
            self._log("stderr", line)

    def _result(self, status: ActivityStatus, started: float, **fields: object) -> ActivityResult:
        return ActivityResult(status=status, logs=list(self.logs), duration_s=time.monotonic() - started, **fields)  # type: ignore[arg-type]

    def execute(self) -> ActivityResult:
        started = time.monotonic()
        final = self.spec.report_path()
        try:
            self.target.prepare(self.spec)
        except ActivityError as error:
            return self._result(ActivityStatus.FAILED, started, error=str(error), error_kind=error.kind)
        staged = self.target.stage(self.spec)
        try:
            process = self.target.launch(staged)
            self.pid = process.pid
            code, cancelled = self._supervise(process)
            if cancelled:
                return self._result(
                    ActivityStatus.CANCELLED, started, error="cancelled", error_kind=CANCELLED, exit_code=code
                )
            if code == 0 and self._done_report is not None:
                self.target.fetch_report(staged, final)
                self._remember()
                return self._result(ActivityStatus.SUCCEEDED, started, report_path=final, exit_code=code)
            kind, message = self._failure(code)
            return self._result(ActivityStatus.FAILED, started, error=message, error_kind=kind, exit_code=code)
        finally:
            self.target.cleanup(staged)

    def _supervise(self, process: WorkerProcess) -> tuple[int, bool]:
        readers = [
            threading.Thread(target=self._read_messages, args=(process.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(process.stderr,), daemon=True),
        ]
        for reader in readers:
            reader.start()
        cancelled = False
        while process.poll() is None:
            if self.cancel_event.wait(0.05):
                cancelled = True
                self._stop(process)
                break
        code = process.wait()
        for reader in readers:
            reader.join(timeout=5.0)
        return code, cancelled

    @staticmethod
    def _stop(process: WorkerProcess) -> None:
        process.terminate()
        try:
            process.wait(timeout=TERMINATE_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()

    def _failure(self, code: int) -> tuple[str, str]:
        if code < 0:
            name = _signal_name(-code)
            hint = " (out of memory: the kernel's OOM killer, or killed from outside)" if -code == 9 else ""
            return CRASHED, f"the worker process was killed by {name} ({-code}){hint}"
        if self._error is not None:
            return self._error
        tail = " | ".join(line.message for line in self.logs[-5:] if line.level == "stderr")
        return FAILED, f"the worker process exited with status {code} without a report{': ' + tail if tail else ''}"

    def _remember(self) -> None:
        if not self.remember:
            return
        settings = {k: v for k, v in self.spec.to_dict().items() if k not in ("kind", "model")}
        try:
            SettingsStore().remember(self.spec.model, self.spec.KIND, settings)
        except OSError as error:
            self._log("warning", f"settings not remembered: {error}")


def run_activity(
    spec: ActivitySpec,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: Target | None = None,
    remember: bool = True,
) -> ActivityResult:
    """Run `spec` in a worker process and block until it ends; never raises for a failed run."""
    return _Run(spec, on_progress, on_log, target, remember).execute()


class ActivityHandle:
    """A run in a background thread: `.cancel()`, `.wait(timeout)`, `.done`, `.result`, `.pid`, `.progress`."""

    def __init__(self, run: _Run) -> None:
        self._run = run
        self._result: ActivityResult | None = None
        self._thread = threading.Thread(target=self._main, name="dld-activity", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        try:
            self._result = self._run.execute()
        except Exception as error:  # the engine itself failed (e.g. the worker could not start)
            self._result = ActivityResult(
                ActivityStatus.FAILED,
                error=f"{type(error).__name__}: {error}",
                error_kind=FAILED,
                logs=list(self._run.logs),
            )

    def cancel(self) -> None:
        self._run.cancel_event.set()

    def wait(self, timeout: float | None = None) -> ActivityResult | None:
        self._thread.join(timeout)
        return self._result

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    @property
    def result(self) -> ActivityResult | None:
        return self._result

    @property
    def pid(self) -> int | None:
        return self._run.pid

    @property
    def progress(self) -> Progress | None:
        return self._run.progress


def start_activity(
    spec: ActivitySpec,
    on_progress: ProgressCallback | None = None,
    on_log: LogCallback | None = None,
    target: Target | None = None,
    remember: bool = True,
) -> ActivityHandle:
    """Start `spec` in the background; callbacks run on the engine's reader thread."""
    return ActivityHandle(_Run(spec, on_progress, on_log, target, remember))
