"""CancelToken: the flag, hooks run once (at once when already cancelled), removable; `step` honours it first."""

from __future__ import annotations

import threading

import pytest

from dld_jupyter.transforms.progress import Cancelled, CancelToken, step


def test_hooks_run_once_and_can_be_removed() -> None:
    token = CancelToken()
    calls: list[str] = []
    token.on_cancel(lambda: calls.append("a"))
    remove = token.on_cancel(lambda: calls.append("b"))
    remove()
    token.check("work")
    threads = [threading.Thread(target=token.cancel) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["a"] and token.cancelled
    token.on_cancel(lambda: calls.append("late"))  # already cancelled: runs at once
    assert calls == ["a", "late"]
    with pytest.raises(Cancelled, match="work: cancelled; the model was not changed"):
        token.check("work")


def test_step_checks_before_reporting() -> None:
    seen: list[tuple[float | None, str]] = []
    step(lambda f, m: seen.append((f, m)), None, "w", 0.5, "half")
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        step(lambda f, m: seen.append((f, m)), token, "w", 0.6, "never")
    assert seen == [(0.5, "half")]
