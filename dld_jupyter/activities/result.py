"""What an activity run gives back: its status, its named artifacts, the error and every log line.

Artifacts are named so that front doors act on each the same way whatever the kind: a `report` opens the viewer,
`layer_info` an engine graph, `model` a designer. A profile gives a report; an engine export its engine and layer
information, no report (a build measures nothing); a divergence its per-node table (and Model Explorer node data
when asked); a session kind may give none.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dld_jupyter.report_format.model import Report

# the names an artifact may have; "divergence": a divergence's per-node table, "node_data": Model Explorer node data
ARTIFACTS = ("report", "engine", "layer_info", "model", "tensors", "divergence", "node_data")


class ActivityStatus(str, enum.Enum):
    QUEUED = "queued"  # a Run waiting for its (target, device) to be free
    RUNNING = "running"
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
    artifacts: dict[str, str] = field(default_factory=dict)  # name (one of ARTIFACTS) -> path
    error: str | None = None
    error_kind: str | None = None  # "bad_input" | "unavailable" | "failed" | "crashed" | "cancelled"
    exit_code: int | None = None  # the worker's exit status; negative: killed by that signal
    logs: list[LogLine] = field(default_factory=list)
    duration_s: float = 0.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.artifacts) - set(ARTIFACTS))
        if unknown:
            raise ValueError(f"artifacts: {unknown} are not artifact names; they are {list(ARTIFACTS)}")

    @property
    def report_path(self) -> str | None:
        """The report, when the run wrote one."""
        return self.artifacts.get("report")

    @property
    def ok(self) -> bool:
        return self.status is ActivityStatus.SUCCEEDED


@dataclass
class Outcome:
    """What an activity kind hands the worker: the report to write (None: it measured nothing) and its other
    artifacts by name (an engine, its layer information)."""

    report: Report | None
    artifacts: dict[str, str] = field(default_factory=dict)
