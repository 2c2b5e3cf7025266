"""The request/reply envelope front doors and activity workers share (TypeScript twin: js/src/common/envelope.ts).

A browser view asks with a Request (a number it chose, an action, its arguments) and the kernel answers with a
Reply carrying the same number: ok with data, or not ok with an error text that says what, why and the fix. The
canvas's intents and replies are this envelope plus their own fields (kind, view, the patches an edit caused and
their binary buffers): see widgets/canvas/protocol.py. These are types only: building a reply costs nothing more
than the dict it always was, so the canvas edit round trip is unchanged. An activity worker serving a session kind
answers `Run.request` with the same envelope over its stdin and protocol channel (activities/worker.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict


class Request(TypedDict):
    request: int  # chosen by the sender, echoed by the reply
    action: str
    args: dict[str, object]


class Reply(TypedDict):
    request: int
    ok: bool
    error: str | None  # set when not ok
    data: dict[str, object] | None  # set when ok and there is something to say


def ok(request: int, data: Mapping[str, object] | None = None) -> Reply:
    return {"request": request, "ok": True, "error": None, "data": dict(data) if data is not None else None}


def failed(request: int, error: str) -> Reply:
    return {"request": request, "ok": False, "error": error, "data": None}
