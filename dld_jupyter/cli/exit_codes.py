"""Exit codes shared by `dld` and `dld-prof`."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    FAILED = 1  # the run itself failed (runtime error, crash, cancelled)
    BAD_INPUT = 2  # bad arguments, unreadable model or report (argparse also exits 2)
    UNAVAILABLE = 3  # the requested backend/provider/target is not available here
