"""Targets an activity runs on: `LocalTarget` now, the SSH target later (same `Target` protocol)."""

from dld_jupyter.activities.targets.base import Target, WorkerProcess
from dld_jupyter.activities.targets.local import LocalTarget

__all__ = ["LocalTarget", "Target", "WorkerProcess"]
