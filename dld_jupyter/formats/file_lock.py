"""Advisory file locks (`flock`) for what two processes must not do at once on one path.

Why: two `dld sweep` runs on one folder both measured every point and overwrote each other's reports and manifest,
and eight concurrent `dld targets add` kept seven connections (each read the registry, added its own, and saved
over the others'). `try_lock` is for work that must refuse when busy (a sweep folder: the second says which pid
holds it); `locked` waits, for short read-modify-write cycles (the targets registry). The lock file holds the
holder's pid; the kernel drops the lock when the holder's process ends, so a crash never leaves a folder locked.
Locks conflict between processes and between separate `try_lock` calls in one process. Standard library only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

Pathish = str | os.PathLike[str]
POLL_S = 0.02


class Held:
    """A held lock; `release()` (or the end of the process) lets the next holder in."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle: IO[str] | None = handle

    def release(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def _acquire(path: Pathish) -> Held | None:
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held open as the lock)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    except BaseException:
        handle.close()
        raise
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return Held(handle)


def holder(path: Pathish) -> str:
    """The pid written by the lock's holder ("unknown" when it cannot be read)."""
    try:
        return Path(path).read_text(encoding="utf-8").strip() or "unknown"
    except (OSError, UnicodeDecodeError):
        return "unknown"


def try_lock(path: Pathish) -> Held | None:
    """The lock of `path` (created if missing), or None at once when another holder has it."""
    return _acquire(path)


@contextlib.contextmanager
def locked(path: Pathish, timeout_s: float = 30.0) -> Iterator[None]:
    """Hold the lock of `path` for the block, waiting up to `timeout_s` for it (TimeoutError naming the holder)."""
    deadline = time.monotonic() + timeout_s
    while (held := _acquire(path)) is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} is held by pid {holder(path)} for more than {timeout_s:.0f} s")
        time.sleep(POLL_S)
    try:
        yield
    finally:
        held.release()
