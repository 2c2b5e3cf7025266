"""What an activity run gives back: its status, the report path, the error and every log line."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class ActivityStatus(str, enum.Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Progress:
    fraction: float  # 0.0 - 1.0 of the whole activity
    phase: str  # "loading", "warm-up", "measuring", "profiling", "writing report", ...


@dataclass(frozen=True)
class LogLine:
    level: str  # "info" | "warning" | "error" | "stderr"
    message: str


@dataclass
class ActivityResult:
    status: ActivityStatus
    report_path: str | None = None
    error: str | None = None
    error_kind: str | None = None  # "bad_input" | "unavailable" | "failed" | "crashed" | "cancelled"
    exit_code: int | None = None  # the worker's exit status; negative: killed by that signal
    logs: list[LogLine] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status is ActivityStatus.SUCCEEDED
