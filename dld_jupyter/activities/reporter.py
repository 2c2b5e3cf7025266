"""The progress and log sink a running backend reports to: the worker's protocol channel, or a test double.

Its own module so that backends, the backend registry and the worker all import it without importing each other.
"""

from __future__ import annotations

from typing import Protocol


class Reporter(Protocol):
    """Progress and log sink of a running backend."""

    def progress(self, fraction: float, phase: str) -> None: ...

    def log(self, message: str, level: str = "info") -> None: ...
