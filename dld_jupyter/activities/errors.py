"""Activity errors, each with the `kind` that the engine, the worker and the CLI exit codes agree on."""

from __future__ import annotations

from typing import ClassVar

BAD_INPUT = "bad_input"
UNAVAILABLE = "unavailable"
FAILED = "failed"


class ActivityError(Exception):
    """Base class: `kind` says whose fault it is (bad input, missing backend, failed run)."""

    kind: ClassVar[str] = FAILED


class SpecError(ActivityError, ValueError):
    """The spec, the model or the input data is wrong: what, why and how to fix is in the message."""

    kind = BAD_INPUT


class UnavailableError(ActivityError, RuntimeError):
    """A backend, provider or GPU feature is not available on this target ("unavailable: <reason>")."""

    kind = UNAVAILABLE

    def __init__(self, reason: str) -> None:
        super().__init__(reason if reason.startswith("unavailable:") else f"unavailable: {reason}")


class RunFailed(ActivityError, RuntimeError):
    """The activity ran and failed: runtime error, crash of the worker, or cancellation."""

    kind = FAILED
