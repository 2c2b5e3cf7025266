"""The one asyncio event loop that every SSH connection of this process lives on, in its own daemon thread.

A Jupyter kernel already runs an event loop in its main thread, and `nest_asyncio` (the usual way around that)
patches asyncio for every library in the kernel. So asyncssh gets a private loop here instead, and the blocking
callers (the engine's threads, the CLI, a notebook cell) hand it coroutines with `call`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def ssh_loop() -> asyncio.AbstractEventLoop:
    """The running SSH loop (started on first use)."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="dld-ssh-loop", daemon=True)
            thread.start()
            _loop = loop
        return _loop


def call(coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run `coroutine` on the SSH loop and wait for its result (its exception is raised here)."""
    loop = ssh_loop()
    if _running_on(loop):
        coroutine.close()
        raise RuntimeError("ssh_loop.call from the SSH loop itself would wait forever; await the coroutine instead")
    future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    try:
        return future.result(timeout)
    except TimeoutError:
        future.cancel()
        raise


def _running_on(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
