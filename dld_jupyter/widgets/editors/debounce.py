"""A debounce timer served by one long-lived thread: `poke()` after each edit costs a lock, not a thread start.

threading.Timer starts a thread per call; while a background check holds the GIL that start-up waited ~10 ms on
every edit of a big model. A poke while a countdown runs only moves its deadline: the thread, asleep until the old
one, finds the new one then (waking it on every edit made it contend for the GIL while the kernel answered the edit,
issue 42). The callback runs on this thread: hand it to the kernel's loop yourself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Debouncer:
    def __init__(self, delay_s: float, fire: Callable[[], None], name: str = "dld-debounce") -> None:
        self.delay_s, self._fire, self._name = delay_s, fire, name
        self._cv = threading.Condition()
        self._deadline: float | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def poke(self) -> None:
        """(Re)start the countdown: `fire` runs once `delay_s` has passed without another poke."""
        with self._cv:
            if self._closed:
                return
            idle = self._deadline is None
            self._deadline = time.monotonic() + self.delay_s
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, daemon=True, name=self._name)
                self._thread.start()
            elif idle:  # asleep with no countdown: start one; a running one reads the later deadline when it ends
                self._cv.notify()

    @property
    def pending(self) -> bool:
        return self._deadline is not None

    def cancel(self) -> None:
        with self._cv:
            self._deadline = None
            self._cv.notify()

    def close(self) -> None:
        with self._cv:
            self._closed, self._deadline = True, None
            self._cv.notify()

    def _serve(self) -> None:
        while True:
            with self._cv:
                while not self._closed and (self._deadline is None or self._deadline > time.monotonic()):
                    self._cv.wait(None if self._deadline is None else self._deadline - time.monotonic())
                if self._closed:
                    return
                self._deadline = None
            self._fire()
