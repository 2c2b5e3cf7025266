"""The worker's message stream: one JSON object per line on the worker's protocol channel (its stdout).

Kept tiny and text-based so that a remote target can relay it over SSH unchanged. Message types:
  {"type": "progress", "fraction": 0.0-1.0, "phase": "..."}
  {"type": "log", "level": "info"|"warning"|"error", "message": "..."}
  {"type": "ready"}                                          a session kind is open and serves requests
  {"type": "reply", "request": n, "ok": ..., "error": ..., "data": ...}   the front doors' envelope (formats.envelope)
  {"type": "done", "artifacts": {"report": "<path>", ...}}      named as activities.result.ARTIFACTS
  {"type": "error", "kind": "bad_input"|"unavailable"|"failed", "message": "..."}
Requests go the other way on the worker's stdin, one envelope Request per line, after the spec's line.
A message whose fields do not have these types (a broken or hostile worker) is named by `malformed`; the engine
logs it and keeps reading, so one bad line never stops the stream.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, TextIO

from dld_jupyter.activities.errors import BAD_INPUT, FAILED, UNAVAILABLE
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


KINDS = (BAD_INPUT, UNAVAILABLE, FAILED)  # what an "error" message may name


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _text(value: object, optional: bool = True) -> bool:
    return isinstance(value, str) or (optional and value is None)


def malformed(message: Message) -> str | None:
    """What is wrong with `message`'s fields (None when they have the types above), in words for a log line."""
    data, kind = message.data, message.type
    if kind == "progress":
        if not _number(data.get("fraction")) or not 0.0 <= float(data["fraction"]) <= 1.0:
            return f"progress fraction {data.get('fraction')!r:.40} is not a number from 0 to 1"
        return None if _text(data.get("phase")) else "progress phase is not text"
    if kind == "log":
        return None if _text(data.get("level")) and _text(data.get("message")) else "log level or message is not text"
    if kind == "ready":
        return None
    if kind == "reply":
        if not isinstance(data.get("request"), int) or isinstance(data.get("request"), bool):
            return "reply without a request number"
        return None if _text(data.get("error")) else "reply error is not text"
    if kind == "done":
        artifacts = data.get("artifacts")
        if not isinstance(artifacts, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in artifacts.items()
        ):
            return "done artifacts are not names and paths"
        return None
    if kind == "error":
        if data.get("kind") not in KINDS:
            return f"error kind {data.get('kind')!r:.40} is not one of {', '.join(KINDS)}"
        return None if _text(data.get("message"), optional=False) else "error message is not text"
    return f"unknown message type {kind!r:.40}"


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
