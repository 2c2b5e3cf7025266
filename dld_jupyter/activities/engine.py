"""Execute Runs in a separate worker process: progress and logs stream back, cancel works, crashes are reported.

The caller (a Jupyter kernel, the CLI) never runs the runtime itself, so a segfault or an OOM kill of the worker
becomes a failed ActivityResult with the signal named, never the caller's death. On success exactly one report
file appears at the spec's report path: the worker writes a private partial file, the target brings it (and every
other artifact) here, and it is checked before it is renamed into place (`fetched`).
Only the scheduler (`scheduler.py`) calls `execute`, on the thread of a Run it starts: it is the one door runs come in
through (`run_activity` and `start_activity` live there).
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from typing import IO

from dld_jupyter.activities import timing
from dld_jupyter.activities.cache import SettingsStore
from dld_jupyter.activities.errors import FAILED, ActivityError
from dld_jupyter.activities.fetched import bring_home
from dld_jupyter.activities.protocol import decode
from dld_jupyter.activities.result import ActivityResult, ActivityStatus
from dld_jupyter.activities.run import LogCallback, ProgressCallback, Run
from dld_jupyter.activities.targets.base import WorkerProcess

__all__ = ["LogCallback", "ProgressCallback", "execute"]

TERMINATE_GRACE_S = 5.0  # time for the worker to unwind (reset GPU clocks) before SIGKILL
CRASHED = "crashed"
CANCELLED = "cancelled"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _read_messages(run: Run, stream: IO[str]) -> None:
    """Drain the worker's stdout to its end, whatever a line holds: a reader that stopped would leave the worker
    blocked on a full pipe, and the run would never end."""
    started, first = time.monotonic(), True
    for line in stream:
        if first:  # the worker's interpreter is up and talking (its start dominates a short run)
            timing.report("worker_first_message", time.monotonic() - started)
            first = False
        message = decode(line)
        try:
            if message is None:
                run.log("stdout", line)
            else:
                run.receive(message)
        except Exception as error:  # a bug in handling one message must not stop the stream
            run.log("warning", f"a worker message could not be handled ({type(error).__name__}: {error}): {line:.200}")


def _read_stderr(run: Run, stream: IO[str]) -> None:
    for line in stream:
        run.log("stderr", line)


def _result(
    run: Run,
    status: ActivityStatus,
    started: float,
    *,
    artifacts: dict[str, str] | None = None,
    error: str | None = None,
    error_kind: str | None = None,
    exit_code: int | None = None,
) -> ActivityResult:
    return ActivityResult(
        status=status,
        artifacts=artifacts or {},
        error=error,
        error_kind=error_kind,
        exit_code=exit_code,
        logs=list(run.logs),
        duration_s=time.monotonic() - started,
    )


def execute(run: Run) -> ActivityResult:
    """Run `run` to its end in a worker on its target; blocks; never raises for a failed run."""
    started = time.monotonic()
    spec, target = run.spec, run.target
    if run.cancel_event.is_set():
        return _result(run, ActivityStatus.CANCELLED, started, error="cancelled", error_kind=CANCELLED)
    try:
        with timing.phase("prepare"):
            target.prepare(spec)
    except ActivityError as error:
        return _result(run, ActivityStatus.FAILED, started, error=str(error), error_kind=error.kind)
    with timing.phase("stage"):
        staged = target.stage(spec)
    try:
        with timing.phase("launch"):
            process = target.launch(staged)
        run.attach(process.pid, process.stdin)
        with timing.phase("worker"):
            code, cancelled = _supervise(run, process)
        if cancelled:
            return _result(
                run, ActivityStatus.CANCELLED, started, error="cancelled", error_kind=CANCELLED, exit_code=code
            )
        if code == 0 and run.done_artifacts is not None:
            try:
                with timing.phase("fetch"):
                    artifacts = bring_home(target, spec, staged, run.done_artifacts, run.observed())
            except ActivityError as error:
                return _result(run, ActivityStatus.FAILED, started, error=str(error), error_kind=error.kind)
            _remember(run)
            return _result(run, ActivityStatus.SUCCEEDED, started, artifacts=artifacts, exit_code=code)
        kind, message = _failure(run, code)
        return _result(run, ActivityStatus.FAILED, started, error=message, error_kind=kind, exit_code=code)
    finally:
        run.close()
        with timing.phase("cleanup"):
            target.cleanup(staged)


def _supervise(run: Run, process: WorkerProcess) -> tuple[int, bool]:
    readers = [
        threading.Thread(target=_read_messages, args=(run, process.stdout), daemon=True),
        threading.Thread(target=_read_stderr, args=(run, process.stderr), daemon=True),
    ]
    for reader in readers:
        reader.start()
    cancelled = False
    while process.poll() is None:
        if run.cancel_event.wait(0.05):
            cancelled = True
            _stop(process)
            break
    code = process.wait()
    for reader in readers:
        reader.join(timeout=5.0)
    return code, cancelled


def _stop(process: WorkerProcess) -> None:
    process.terminate()
    try:
        process.wait(timeout=TERMINATE_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()


def _failure(run: Run, code: int) -> tuple[str, str]:
    if code < 0:
        name = _signal_name(-code)
        hint = " (out of memory: the kernel's OOM killer, or killed from outside)" if -code == 9 else ""
        return CRASHED, f"the worker process was killed by {name} ({-code}){hint}"
    if run.worker_error is not None:
        return run.worker_error
    tail = " | ".join(line.message for line in run.logs[-5:] if line.level == "stderr")
    return FAILED, f"the worker process exited with status {code} without a report{': ' + tail if tail else ''}"


def _remember(run: Run) -> None:
    if not run.remember:
        return
    spec = run.spec
    settings = {k: v for k, v in spec.to_dict().items() if k not in ("kind", "model", "source_document")}
    # a run of a copy of unsaved edits is the user's model's run: its settings are recalled for that file, never
    # stored under the copy's temporary path (which no later run names)
    try:
        SettingsStore().remember(spec.user_model(), spec.KIND, settings)
    except OSError as error:
        run.log("warning", f"settings not remembered: {error}")
