"""In-process work as a run (issue 25, one job model): a ThreadRun has the interface of an activity Run (status,
progress, logs, cancel, wait, on_end, result) and ends SUCCEEDED, CANCELLED (the token's Cancelled, or a return
once cancelled, as a user tool ended by Cancel does) or FAILED with the work's error."""

from __future__ import annotations

import threading
from typing import Any

from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.thread_run import ThreadRun
from dld_jupyter.transforms.progress import Cancelled, CancelToken
from dld_jupyter.transforms.progress import Progress as Report


def test_success_progress_logs_and_listeners() -> None:
    ended: list[Any] = []

    def work(progress: Report, _token: CancelToken) -> int:
        progress(0.5, "half")
        progress(None, "still half")
        return 42

    run = ThreadRun("sum", work)
    run.on_end(ended.append)
    assert run.status is ActivityStatus.QUEUED and not run.done
    result = run.start().wait(10)
    assert result is not None and result.ok and run.value == 42 and ended == [run]
    assert run.progress is not None and (run.progress.fraction, run.progress.phase) == (0.5, "still half")
    assert [line.message for line in run.logs] == ["half", "still half"] and result.duration_s >= 0


def test_cancel_ends_cancelled_whether_the_work_raises_or_returns() -> None:
    started = threading.Event()

    def transform(_progress: Report, token: CancelToken) -> None:
        started.set()
        while not token.cancelled:
            threading.Event().wait(0.01)
        raise Cancelled("Sanitize")

    run = ThreadRun("Sanitize", transform).start()
    assert started.wait(10)
    run.cancel()
    result = run.wait(10)
    assert result is not None and result.status is ActivityStatus.CANCELLED and result.error_kind == "cancelled"
    assert result.error == "Sanitize: cancelled; the model was not changed."

    def tool(_progress: Report, token: CancelToken) -> str:  # a user tool returns its (cancelled) outcome
        while not token.cancelled:
            threading.Event().wait(0.01)
        return "ended by Cancel"

    run = ThreadRun("tool", tool).start()
    run.cancel()
    result = run.wait(10)
    assert result is not None and result.status is ActivityStatus.CANCELLED and run.value == "ended by Cancel"


def test_a_failure_is_the_runs_error() -> None:
    def broken(_progress: Report, _token: CancelToken) -> None:
        raise ValueError("opset 7 is not supported")

    result = ThreadRun("FP16", broken).start().wait(10)
    assert result is not None and result.status is ActivityStatus.FAILED
    assert (result.error, result.error_kind) == ("opset 7 is not supported", "failed")
