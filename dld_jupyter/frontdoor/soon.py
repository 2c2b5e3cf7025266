"""Run a callback once, shortly after the kernel message being handled: what an edit's followers (the editor
panels, the designer's status, the Lab sidebar's layer list) use so that the canvas's reply to the edit leaves
first and the browser draws it before their messages come, and a burst of document events costs one refresh.
They run FOLLOW_S later, not at the loop's next turn: the panels' widget messages then crossed the Jupyter server and
the browser's main thread while the reply did, and an isolated rename on the real Llama export took 3.5-4.2 ms
(p95 6.9-8.4 ms) instead of 2.5-2.7 ms (p95 5.5 ms) here (issue 42). Without a running event loop (tests, scripts)
the callback runs at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

FOLLOW_S = 0.025  # seconds after the message: about one browser frame, too short for a user to see the panels lag


def on_loop(loop: asyncio.AbstractEventLoop | None, fn: Callable[[], None]) -> None:
    """Run ``fn`` on the kernel's main thread (``loop``, taken there earlier) from any thread; at once without one."""
    if loop is not None and loop.is_running():
        loop.call_soon_threadsafe(fn)
    else:
        fn()


def running_loop() -> asyncio.AbstractEventLoop | None:
    """This thread's running event loop (the kernel's, on its main thread), or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Soon:
    """``soon()`` schedules ``callback`` on this thread's event loop, FOLLOW_S from now, unless it is scheduled
    already (then that one call covers this one too)."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback
        self._scheduled = False

    def __call__(self) -> None:
        loop = running_loop()
        if loop is None:  # no kernel loop on this thread: now
            self._callback()
            return
        if not self._scheduled:
            self._scheduled = True
            loop.call_later(FOLLOW_S, self._run)

    def _run(self) -> None:
        self._scheduled = False
        self._callback()
