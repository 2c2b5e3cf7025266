"""Where a run's seconds go, printed on request: `DLD_TIMING=1` makes each phase of a run (prepare, stage, launch,
the worker's first message, the worker's end, fetch, cleanup) print `dld-timing <phase> <seconds>` to stderr.

Why: a remote profile cost 1.6-2.7 s more than a local one (issue 40), and only phase times say whether that is the
connection, the deployment check, staging, the remote interpreter or the fetch. `benchmarks/remote_target_bench.py
--cli` reads these lines. Off by default: nothing is printed and nothing else changes.

The last phases are also kept in memory (`recent()`, a bounded list, printed or not): a designer tab's open is
timed inside a kernel whose stderr is the tab's own output, so `benchmarks/open_time_bench.py` asks the kernel for
them instead of reading a log.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

_recent: deque[tuple[str, float, float]] = deque(maxlen=64)  # (phase, started at (epoch s), seconds)


def enabled() -> bool:
    return os.environ.get("DLD_TIMING") == "1"


def report(phase: str, seconds: float) -> None:
    _recent.append((phase, time.time() - seconds, seconds))
    if enabled():
        print(f"dld-timing {phase} {seconds:.4f}", file=sys.stderr, flush=True)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Time the block as `name` (printed when DLD_TIMING=1, also when it raises)."""
    started = time.monotonic()
    try:
        yield
    finally:
        report(name, time.monotonic() - started)


def recent() -> list[tuple[str, float, float]]:
    """The last phases timed in this process, oldest first: (phase, started at in epoch seconds, seconds)."""
    return list(_recent)
