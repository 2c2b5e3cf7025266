"""Canvas overlays, kernel side (widgets/canvas/overlays/base.py): an overlay registers with its canvas, a view that
connects late gets its state after the snapshot, the browser's `overlay` messages reach it by name. A real
GraphCanvas on a small ResNet, the messages it sends recorded; the overlay is a real subclass of the base."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import ClassVar

import onnx
import pytest

from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from dld_jupyter.widgets.canvas.overlays.base import Overlay
from dld_jupyter.widgets.canvas.protocol import OverlayMessage
from tests.models import resnet_like
from tests.widgets.test_canvas import Recorder, make


@pytest.fixture
def resnet(tmp_path: Path) -> Path:
    path = tmp_path / "resnet.onnx"
    onnx.save(resnet_like(), path)
    return path


class Marks(Overlay):
    """Marks some nodes; the browser may unmark them."""

    name: ClassVar[str] = "marks"

    def __init__(self, canvas: GraphCanvas) -> None:
        super().__init__(canvas)
        self.ids: list[str] = []
        self.received: list[OverlayMessage] = []

    def mark(self, ids: list[str]) -> None:
        self.ids = ids
        self.send(*self._state())

    def _state(self) -> tuple[OverlayMessage, list[bytes]]:
        return self.message("set", {"ids": self.ids}), [b"\x01"]

    def state(self) -> tuple[OverlayMessage, list[bytes]] | None:
        return self._state() if self.ids else None

    def receive(self, message: OverlayMessage, buffers: list[bytes]) -> None:
        self.received.append(message)
        if message["action"] == "unmarked":
            self.ids = []


class Other(Marks):
    name: ClassVar[str] = "other"


def overlay_messages(rec: Recorder, since: int) -> list[tuple[str, str]]:
    return [(m["kind"], m.get("action", "")) for m, _ in rec.messages[since:] if m["kind"] in ("snapshot", "overlay")]


def test_an_overlays_state_reaches_a_view_that_connects_late(resnet: Path) -> None:
    canvas, rec = make(resnet)
    marks = Marks(canvas)
    node = canvas.document.nodes()[0].id
    marks.mark([node])  # drawn on the view there is; a view that connects later has seen nothing of it
    before = len(rec.messages)
    canvas._on_msg(canvas, {"kind": "hello", "view": "late"}, [])
    assert overlay_messages(rec, before) == [("snapshot", ""), ("overlay", "set")]  # over the snapshot's elements
    message, buffers = rec.last("overlay")
    assert message == {"kind": "overlay", "overlay": "marks", "action": "set", "ids": [node]} and buffers == [b"\x01"]
    before = len(rec.messages)
    canvas._on_msg(canvas, {"kind": "hello", "view": "again", "lost": True}, [])  # a view whose channel dropped
    assert overlay_messages(rec, before) == [("snapshot", ""), ("overlay", "set")]


def test_the_browsers_overlay_messages_reach_their_overlay_by_name(
    resnet: Path, caplog: pytest.LogCaptureFixture
) -> None:
    canvas, rec = make(resnet)
    marks, other = Marks(canvas), Other(canvas)
    marks.mark([canvas.document.nodes()[0].id])
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "marks", "action": "unmarked"}, [])
    assert [m["action"] for m in marks.received] == ["unmarked"] and other.received == []
    before = len(rec.messages)
    canvas._on_msg(canvas, {"kind": "hello", "view": "late"}, [])
    assert overlay_messages(rec, before) == [("snapshot", "")]  # unmarked in the browser: nothing to draw again
    with caplog.at_level(logging.WARNING):
        canvas._on_msg(canvas, {"kind": "overlay", "overlay": "divergence", "action": "set"}, [])
    assert "no overlay of" in caplog.text and "reinstall dld_jupyter" in caplog.text


class Failing(Marks):
    name: ClassVar[str] = "failing"

    def receive(self, message: OverlayMessage, buffers: list[bytes]) -> None:
        raise RuntimeError("the overlay broke")


def test_an_overlay_request_in_the_envelope_gets_its_reply(resnet: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The browser's overlay menu items travel as requests (js channel.ts overlayRequest): each gets a reply for
    the view that asked, ok once routed, else the reason, which the canvas shows (before: no reply, nothing said)."""
    canvas, rec = make(resnet)
    marks, _failing = Marks(canvas), Failing(canvas)
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "marks", "action": "unmarked", "request": 4, "view": "v"}, [])
    assert [m["action"] for m in marks.received] == ["unmarked"]
    assert rec.last("reply")[0] == {"kind": "reply", "request": 4, "ok": True, "error": None, "data": None,
                                    "view": "v", "patches": []}
    with caplog.at_level(logging.WARNING):
        canvas._on_msg(canvas, {"kind": "overlay", "overlay": "nope", "action": "set", "request": 5, "view": "v"}, [])
        canvas._on_msg(canvas, {"kind": "overlay", "overlay": "failing", "action": "x", "request": 6, "view": "v"}, [])
    unknown, failed = (m for m, _ in rec.messages[-2:])
    assert (unknown["request"], unknown["ok"]) == (5, False) and "reinstall dld_jupyter" in unknown["error"]
    assert (failed["request"], failed["ok"]) == (6, False)
    assert failed["error"] == "failing x failed: RuntimeError: the overlay broke"
    assert "the overlay broke" in caplog.text  # the trace is logged too
    # a message without a request number (what the browser sent before) is routed as ever, with no reply
    before = len(rec.messages)
    canvas._on_msg(canvas, {"kind": "overlay", "overlay": "marks", "action": "unmarked"}, [])
    assert [m["kind"] for m, _ in rec.messages[before:]] == []


def test_an_overlay_is_registered_once_per_canvas_and_named(resnet: Path) -> None:
    canvas, _rec = make(resnet)
    Marks(canvas)
    with pytest.raises(ValueError, match="'marks' overlay already"):
        Marks(canvas)

    class Nameless(Overlay):
        pass

    with pytest.raises(ValueError, match="has no name"):
        Nameless(canvas)
    assert [o.name for o in canvas.overlays] == ["marks"]
