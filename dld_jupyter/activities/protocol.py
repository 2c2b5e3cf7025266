"""The worker's message stream: one JSON object per line on the worker's protocol channel (its stdout).

Kept tiny and text-based so that a remote target can relay it over SSH unchanged. Message types:
  {"type": "progress", "fraction": 0.0-1.0, "phase": "..."}
  {"type": "log", "level": "info"|"warning"|"error", "message": "..."}
  {"type": "ready"}                                          a session kind is open and serves requests
  {"type": "reply", "request": n, "ok": ..., "error": ..., "data": ...}   the front doors' envelope (formats.envelope)
  {"type": "done", "artifacts": {"report": "<path>", ...}}      named as activities.result.ARTIFACTS
  {"type": "error", "kind": "bad_input"|"unavailable"|"failed", "message": "..."}
Requests go the other way on the worker's stdin, one envelope Request per line, after the spec's line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TextIO

from dld_jupyter.formats.envelope import Reply

PREFIX = "@dld "  # lines without it (stray prints from native code) are treated as log output


@dataclass(frozen=True)
class Message:
    type: str
    data: dict[str, Any]


def encode(type_: str, **data: Any) -> str:
    return PREFIX + json.dumps({"type": type_, **data}) + "\n"


def decode(line: str) -> Message | None:
    """A protocol message, or None for any other line."""
    if not line.startswith(PREFIX):
        return None
    try:
        data = json.loads(line[len(PREFIX) :])
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return None
    return Message(type=data.pop("type"), data=data)


class Channel:
    """Worker side: writes messages and flushes each one so the engine sees progress live."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def send(self, type_: str, **data: Any) -> None:
        self._stream.write(encode(type_, **data))
        self._stream.flush()

    def progress(self, fraction: float, phase: str) -> None:
        self.send("progress", fraction=max(0.0, min(1.0, fraction)), phase=phase)

    def log(self, message: str, level: str = "info") -> None:
        self.send("log", level=level, message=message)

    def reply(self, reply: Reply) -> None:
        self.send("reply", **reply)
