"""A Run: one activity as front doors see it, queued, running or ended, whatever its kind and target.

It has an id, its spec and target, a status, the latest progress, every log line, `cancel()`, `wait()` and, for
session kinds that stay alive between requests, `request(action, args)`: an envelope Request written to the
worker's stdin and answered by a Reply on its protocol channel (`formats.envelope`, `kinds.session`). The engine
(`engine.py`) executes a Run in a worker process; the scheduler (`scheduler.py`) decides when it starts; the live
runs registry (`frontdoor/runs.py`) lists them. Callbacks run on the engine's reader threads: one that raises never
breaks the run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.errors import FAILED, RunFailed
from dld_jupyter.activities.protocol import Message, malformed
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, LogLine, Progress
from dld_jupyter.activities.run_end import RunEnd
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.local import LocalTarget
from dld_jupyter.formats.envelope import Reply, Request

if TYPE_CHECKING:
    from dld_jupyter.activities.gpu_watch import GpuWatch

ProgressCallback = Callable[[Progress], None]
LogCallback = Callable[[LogLine], None]
REQUEST_TIMEOUT_S = 60.0


class Run(RunEnd):
    """One activity run; see the module docstring. Create it, then `start` it (the engine or the scheduler does)."""

    def __init__(
        self,
        spec: ActivitySpec,
        target: Target | None = None,
        on_progress: ProgressCallback | None = None,
        on_log: LogCallback | None = None,
        remember: bool = True,
        command: CommandLine | None = None,
    ) -> None:
        super().__init__()
        self.id = uuid.uuid4().hex[:12]
        self.spec = spec.resolved()
        self.command = command  # the command a front door knows better than the spec (it ran a copy of a document)
        self.target: Target = target or LocalTarget()
        self.on_progress, self.on_log, self.remember = on_progress, on_log, remember
        self.cancel_event = threading.Event()
        self.pid: int | None = None
        self.progress: Progress | None = None
        self.logs: list[LogLine] = []
        self.started_at: float | None = None  # time.monotonic() when the worker was launched
        self.done_artifacts: dict[str, str] | None = None  # what the worker's "done" named (target-side paths)
        self.worker_error: tuple[str, str] | None = None  # (kind, message) the worker sent
        self.gpu_watch: GpuWatch | None = None  # NVML's word on other processes on its GPU (the scheduler's)
        # What this host saw beside the worker, asked once the worker has exited: into the report's system table
        self.observers: list[Callable[[], dict[str, Any]]] = []
        self._ready = threading.Event()
        self._stdin: IO[str] | None = None
        self._stdin_lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._replies: dict[int, Reply] = {}
        self._answered: dict[int, threading.Event] = {}
        self._thread: threading.Thread | None = None

    # -- state (status, done, result, on_end, wait: run_end.py) --------------------------------------------------
    @property
    def device(self) -> str:
        """The device this run occupies on its target ("cpu", "cuda:0"): one run at a time per (target, device)."""
        return self.spec.device_key()

    def observed(self) -> dict[str, Any]:
        """What the observers saw (the report's system table gets it when the report comes home)."""
        seen: dict[str, Any] = {}
        for observer in self.observers:
            seen.update(observer())
        return seen

    def command_line(self) -> CommandLine:
        """The `dld` command that runs this spec again from a shell (`ActivitySpec.command_line`), or the one its
        front door gave."""
        return self.command or self.spec.command_line()

    # -- control -------------------------------------------------------------------------------------------------
    def start(self, execute: Callable[[Run], ActivityResult]) -> Run:
        """Execute in a background thread (`execute` is the engine's); a cancelled queued run stays cancelled."""
        if self._thread is not None or self.done:
            return self
        self.mark_running()
        self._thread = threading.Thread(target=self._main, args=(execute,), name=f"dld-run-{self.id}", daemon=True)
        self._thread.start()
        return self

    def mark_running(self) -> None:
        """Leave the queue: the engine executes the run now (in this thread or the run's own)."""
        if self._status is ActivityStatus.QUEUED:
            self._status = ActivityStatus.RUNNING

    def _main(self, execute: Callable[[Run], ActivityResult]) -> None:
        try:
            result = execute(self)
        except Exception as error:  # the engine itself failed (e.g. the worker could not start)
            result = ActivityResult(
                ActivityStatus.FAILED, error=f"{type(error).__name__}: {error}", error_kind=FAILED, logs=list(self.logs)
            )
        self.finish(result)

    def finish(self, result: ActivityResult) -> None:
        """Record the outcome and tell the listeners (the engine calls it; so does `cancel` on a queued run)."""
        self.ended(result)

    def cancel(self) -> None:
        """Stop the worker (it unwinds, then is killed after a grace period); a queued run never starts."""
        self.cancel_event.set()
        if self._status is ActivityStatus.QUEUED:
            self.finish(ActivityResult(ActivityStatus.CANCELLED, error="cancelled", error_kind="cancelled"))

    def request(self, action: str, args: dict[str, Any] | None = None, timeout: float = REQUEST_TIMEOUT_S) -> Reply:
        """Ask a session run's worker; RunFailed when the run is not (or no longer) serving, or takes too long."""
        deadline = time.monotonic() + timeout
        if self.done:
            raise self._ended(f"{action}: the run is not serving requests")
        self._await(self._ready, deadline, f"{action}: the run is not serving requests")
        number = next(self._numbers)
        answered = self._answered.setdefault(number, threading.Event())
        request: Request = {"request": number, "action": action, "args": dict(args or {})}
        with self._stdin_lock:
            if self._stdin is None:
                raise RunFailed(f"{action}: the run's worker takes no requests (its input is closed)")
            try:
                self._stdin.write(json.dumps(request) + "\n")
                self._stdin.flush()
            except (OSError, ValueError) as error:
                raise RunFailed(f"{action}: the worker is gone ({error})") from error
        self._await(answered, deadline, f"{action}: no reply")
        return self._replies.pop(number)

    def close(self) -> None:
        """End a session run: its worker sees the end of its input and finishes."""
        with self._stdin_lock:
            stdin, self._stdin = self._stdin, None
        if stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()

    def _await(self, event: threading.Event, deadline: float, what: str) -> None:
        while not event.wait(0.02):
            if self.done:
                raise self._ended(what)
            if time.monotonic() > deadline:
                raise RunFailed(f"{what} within the timeout; is the run a session kind?")

    def _ended(self, what: str) -> RunFailed:
        error = self._result.error if self._result is not None else None
        return RunFailed(f"{what}: the run has ended ({self._status.value}: {error})")

    # -- what the engine feeds in ---------------------------------------------------------------------------------
    def attach(self, pid: int, stdin: IO[str] | None) -> None:
        self.pid, self._stdin, self.started_at = pid, stdin, time.monotonic()

    def log(self, level: str, message: str) -> None:
        line = LogLine(level, message.rstrip("\n"))
        self.logs.append(line)
        if self.on_log is not None:
            with contextlib.suppress(Exception):  # a broken callback must not break the run
                self.on_log(line)

    def receive(self, message: Message) -> None:
        """One protocol message from the worker; a malformed one is logged (a bad `done` or `error` fails the run)."""
        problem = malformed(message)
        if problem is not None:
            self.log("warning", f"the worker sent a malformed {message.type!r:.40} message ({problem}); ignored")
            if message.type in ("done", "error"):
                self.worker_error = (FAILED, f"the worker's {message.type!r} message was malformed: {problem}")
            return
        data = message.data
        if message.type == "progress":
            self.progress = Progress(float(data["fraction"]), str(data.get("phase") or ""))
            if self.on_progress is not None:
                with contextlib.suppress(Exception):
                    self.on_progress(self.progress)
        elif message.type == "log":
            self.log(str(data.get("level") or "info"), str(data.get("message") or ""))
        elif message.type == "ready":
            self._ready.set()
        elif message.type == "reply":
            number = int(data["request"])
            self._replies[number] = {
                "request": number,
                "ok": bool(data.get("ok")),
                "error": data.get("error"),
                "data": data.get("data"),
            }
            self._answered.setdefault(number, threading.Event()).set()
        elif message.type == "done" and self.worker_error is None:
            self.done_artifacts = dict(data["artifacts"])
        elif message.type == "error":
            self.worker_error = (str(data["kind"]), str(data["message"]))
