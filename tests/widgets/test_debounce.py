"""Debouncer: one firing after a burst of pokes, none after cancel or close, one thread for its whole life."""

from __future__ import annotations

import threading
import time

from dld_jupyter.widgets.editors.debounce import Debouncer


def test_a_burst_fires_once_after_the_quiet_delay() -> None:
    fired: list[float] = []
    done = threading.Event()
    debounce = Debouncer(0.15, lambda: (fired.append(time.monotonic()), done.set()))
    start = time.monotonic()
    for _ in range(5):
        debounce.poke()
        last = time.monotonic()
        time.sleep(0.05)  # each poke restarts the countdown
    assert done.wait(2)
    time.sleep(0.3)
    assert len(fired) == 1
    assert fired[0] - last >= 0.14 and fired[0] - start >= 0.35
    threads = [t for t in threading.enumerate() if t.name == "dld-debounce"]
    debounce.poke()
    time.sleep(0.3)
    assert len(fired) == 2
    assert [t for t in threading.enumerate() if t.name == "dld-debounce"] == threads  # the same thread served both
    debounce.close()


def test_cancel_and_close_stop_a_pending_firing() -> None:
    fired: list[int] = []
    debounce = Debouncer(0.1, lambda: fired.append(1), name="dld-debounce-test")
    debounce.poke()
    assert debounce.pending
    debounce.cancel()
    time.sleep(0.25)
    assert fired == [] and not debounce.pending
    debounce.poke()
    debounce.close()
    time.sleep(0.25)
    assert fired == []
    assert not any(t.name == "dld-debounce-test" for t in threading.enumerate())  # its thread ended
    debounce.poke()  # after close: ignored
    time.sleep(0.15)
    assert fired == []


def test_pokes_during_a_countdown_leave_its_thread_asleep() -> None:
    fired: list[float] = []
    debounce = Debouncer(0.2, lambda: fired.append(time.monotonic()), name="dld-debounce-quiet")
    debounce.poke()
    time.sleep(0.05)  # the thread is waiting for the first deadline now
    wakes: list[int] = []
    notify = debounce._cv.notify
    debounce._cv.notify = lambda n=1: (wakes.append(n), notify(n))  # type: ignore[method-assign]
    for _ in range(4):  # edits of one burst: each moves the deadline, none wakes the thread
        debounce.poke()
        last = time.monotonic()
        time.sleep(0.03)
    assert wakes == []
    time.sleep(0.45)
    assert len(fired) == 1 and fired[0] - last >= 0.19  # still once, after the last poke's delay
    debounce.poke()  # idle again: this poke wakes it to start a countdown
    assert wakes == [1]
    time.sleep(0.35)
    assert len(fired) == 2
    debounce.close()
