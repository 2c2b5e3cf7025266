"""The shared request/reply envelope: the same names in Python and TypeScript, and the canvas speaks it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_type_hints

from dld_jupyter.formats.envelope import Reply, Request, failed, ok
from dld_jupyter.widgets.canvas.protocol import IntentMessage, ReplyMessage

TWIN = Path(__file__).resolve().parents[2] / "js" / "src" / "common" / "envelope.ts"


def ts_fields(interface: str) -> set[str]:
    body = re.search(r"export interface " + interface + r"\b[^{]*\{(.*?)\n\}", TWIN.read_text(), re.S)
    assert body is not None, f"{interface} is gone from {TWIN.name}"
    return set(re.findall(r"^\s+(\w+)\??:", body.group(1), re.M))


def test_python_and_typescript_name_the_same_fields() -> None:
    assert ts_fields("Request") == set(Request.__annotations__)
    assert ts_fields("Reply") == set(Reply.__annotations__)


def test_ok_and_failed_build_replies() -> None:
    assert ok(3, {"label": "Add Relu"}) == {"request": 3, "ok": True, "error": None, "data": {"label": "Add Relu"}}
    assert ok(4) == {"request": 4, "ok": True, "error": None, "data": None}
    assert failed(5, "Save: no path.") == {"request": 5, "ok": False, "error": "Save: no path.", "data": None}


def test_canvas_messages_are_the_envelope_plus_their_own_fields() -> None:
    assert set(Request.__annotations__) <= set(get_type_hints(IntentMessage))
    assert set(Reply.__annotations__) <= set(get_type_hints(ReplyMessage))
    assert {"kind", "view", "patches"} <= set(get_type_hints(ReplyMessage))
