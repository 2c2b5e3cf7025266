"""The session activity: a runtime session that stays open between requests, the first use of `Run.request`.

The worker opens the spec's runtime session, says "ready", then answers one envelope Request per stdin line with a
Reply on its protocol channel: `ping`, `run` (one timed pass, plain or profiled), `outputs` (named outputs of one
pass, summarized: shape, dtype, min, max, mean) and `close`. A request that fails gets a failed Reply saying why;
the session stays open. It ends on `close` or when stdin ends, with no artifacts.
`serve_lines` is the request loop every session kind shares (the analysis kind answers its own actions with it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from dld_jupyter.activities.errors import ActivityError, SpecError
from dld_jupyter.activities.protocol import Channel
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.runtimes import runtime_for
from dld_jupyter.activities.runtimes.base import Session
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.formats.envelope import Reply, failed, ok

ACTIONS = ("close", "outputs", "ping", "run")
Answer = Callable[[str, dict[str, Any]], dict[str, object]]  # (action, args) -> reply data; ActivityError refuses


def summary(value: Any) -> dict[str, object]:
    """A JSON summary of one output array: what a front door shows without shipping the tensor."""
    array = np.asarray(value)
    numeric = array.size > 0 and (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_)
    data = array.astype(np.float64) if numeric else None
    return {
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        "min": float(data.min()) if data is not None else None,
        "max": float(data.max()) if data is not None else None,
        "mean": float(data.mean()) if data is not None else None,
    }


def answer(session: Session, action: str, args: dict[str, Any]) -> dict[str, object]:
    """The data of the reply to `action` (SpecError for an unknown action or bad arguments)."""
    if action == "ping":
        return {"pong": True}
    if action == "run":
        passed = session.run(None, bool(args.get("profiled", False)))
        return {"wall_ms": passed.wall_ms}
    if action == "outputs":
        names = args.get("names", [])
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise SpecError(f"names: expected a list of output names, got {names!r}")
        return {name: summary(value) for name, value in session.outputs(names).items()}
    raise SpecError(f"action: {action!r} is not one of {list(ACTIONS)}")


def _reply(answer_with: Answer, line: str) -> tuple[Reply, bool]:
    """The reply to one request line, and whether the session should close."""
    try:
        request = json.loads(line)
    except ValueError as error:
        return failed(-1, f"request: not valid JSON ({error}); send one envelope Request per line"), False
    number = request.get("request", -1) if isinstance(request, dict) else -1
    if not isinstance(request, dict) or not isinstance(number, int) or not isinstance(request.get("action"), str):
        return failed(-1, f"request: expected {{'request': int, 'action': str, 'args': {{...}}}}, got {line!r}"), False
    action, args = request["action"], request.get("args") or {}
    if action == "close":
        return ok(number), True
    try:
        return ok(number, answer_with(action, args if isinstance(args, dict) else {})), False
    except ActivityError as error:
        return failed(number, str(error)), False


def serve(spec: ActivitySpec, channel: Channel, requests: Iterable[str]) -> Outcome:
    """Open `spec`'s session and answer `requests` until `close` or their end."""
    channel.progress(0.0, "opening session")
    with runtime_for(spec).session(spec.model, spec, channel) as session:
        serve_lines(channel, requests, lambda action, args: answer(session, action, args))
    return Outcome(None)


def serve_lines(channel: Channel, requests: Iterable[str], answer_with: Answer) -> None:
    """Say "ready", then answer each envelope request line with `answer_with` until `close` or the lines end."""
    channel.progress(1.0, "ready")
    channel.send("ready")
    for line in requests:
        if not line.strip():
            continue
        reply, close = _reply(answer_with, line)
        channel.reply(reply)
        if close:
            break
