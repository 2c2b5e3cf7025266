"""Run a callback once, after the kernel message being handled: what an edit's followers use so that the
canvas's reply to the edit leaves first (the browser draws the edit, then re-renders panels and lists), and a burst
of document events costs one refresh. Without a running event loop (tests, scripts) the callback runs at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


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
    """``soon()`` schedules ``callback`` on this thread's event loop unless it is scheduled already."""

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
            loop.call_soon(self._run)

    def _run(self) -> None:
        self._scheduled = False
        self._callback()
