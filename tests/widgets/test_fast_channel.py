"""The canvas's fast channel, kernel side: a real Unix socket on a running event loop (as in the kernel), a client
speaking the relay's frames, and the comm recorded. Checks the routing rules of widgets/canvas/view_routes.py: attached
views get everything over the socket, views still on the comm get it there, every message numbered once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from pathlib import Path
from typing import Any

import onnx
import pytest

from dld_jupyter.channel_frames import FRAME_HEADER, socket_path
from dld_jupyter.document import Document
from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from dld_jupyter.widgets.canvas.channel_socket import decode, encode
from tests.models import resnet_like


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "resnet.onnx"
    onnx.save(resnet_like(), path)
    return path


class Client:
    """One view's end of the socket (what the server's relay connects)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, token: str) -> Client:
        return cls(*await asyncio.open_unix_connection(str(socket_path(token))))

    def send(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        payload = encode(content, buffers)
        self.writer.write(FRAME_HEADER.pack(len(payload)) + payload)

    async def receive(self) -> tuple[dict[str, Any], list[bytes]]:
        (size,) = FRAME_HEADER.unpack(await asyncio.wait_for(self.reader.readexactly(FRAME_HEADER.size), 5))
        return decode(await self.reader.readexactly(size))


def test_frames_round_trip_json_and_buffers() -> None:
    content, buffers = decode(encode({"kind": "intent", "name": "é"}, [b"\x00\x01", b"xyz"]))
    assert content == {"kind": "intent", "name": "é"} and buffers == [b"\x00\x01", b"xyz"]
    with pytest.raises(ValueError):
        decode(encode([1, 2]))  # type: ignore[arg-type]


def test_without_an_event_loop_there_is_no_socket(model: Path) -> None:
    canvas = GraphCanvas(Document.open(model))
    assert canvas.channel_token == ""  # a script: the comm carries everything
    canvas.close()


def test_edits_over_the_socket_and_the_routing_of_views(model: Path) -> None:
    async def scenario() -> None:
        canvas = GraphCanvas(Document.open(model))
        comm: list[dict[str, Any]] = []
        canvas._routes._comm_send = lambda content, buffers: comm.append(content)
        token = canvas.channel_token
        assert len(token) == 32
        path = socket_path(token)
        await asyncio.sleep(0)  # the listener starts on the loop
        assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600

        canvas._on_msg(canvas, {"kind": "hello", "view": "A"}, [])  # view A renders: snapshot over the comm
        assert [m["kind"] for m in comm] == ["snapshot", "ops"]
        assert [m["seq"] for m in comm] == [1, 2]

        a = await Client.connect(token)
        a.send({"kind": "attach", "view": "A"})
        attached, _ = await a.receive()
        assert attached == {"kind": "attached", "seq": 2}
        node = next(n for n in canvas.document.nodes() if n.op_type == "Conv")
        a.send({"kind": "intent", "request": 1, "action": "rename", "args": {"node": node.id, "name": "fast_conv"},
                "view": "A"})
        reply, _ = await a.receive()
        assert reply["kind"] == "reply" and reply["ok"] and reply["view"] == "A" and reply["seq"] == 3
        assert reply["patches"] and canvas.document.node(node.id).name == "fast_conv"
        assert len(comm) == 2, "an attached view's reply went over the comm too"

        # A refused edit answers over the socket too, and changes nothing.
        a.send({"kind": "intent", "request": 2, "action": "rename", "args": {"node": node.id, "name": "1 bad"},
                "view": "A"})
        refused, _ = await a.receive()
        assert not refused["ok"] and "name" in refused["error"] and canvas.document.node(node.id).name == "fast_conv"

        # A second view still on the comm: messages go both ways, with one number each.
        canvas._on_msg(canvas, {"kind": "hello", "view": "B"}, [])
        over_socket = [(await a.receive())[0] for _ in range(2)]
        assert [m["kind"] for m in over_socket] == ["snapshot", "ops"]
        assert [m["seq"] for m in over_socket] == [m["seq"] for m in comm[-2:]] == [5, 6]
        canvas._on_msg(canvas, {"kind": "bye", "view": "B"}, [])
        canvas.focus([node.id])
        focus, _ = await a.receive()
        assert focus["kind"] == "focus" and comm[-1]["kind"] == "ops", "the comm kept a copy after B left"

        # A's socket dropped, and A says so over the comm before this kernel has read the socket's end: A gets
        # its snapshot over the comm, and nothing more goes to that socket.
        canvas._on_msg(canvas, {"kind": "hello", "view": "A", "lost": True}, [])
        assert [m["kind"] for m in comm[-2:]] == ["snapshot", "ops"] and comm[-2]["seq"] == focus["seq"] + 1
        assert canvas._routes.attached() == [] and canvas._routes.comm_views == {"A"}
        a.writer.close()
        for _ in range(50):
            await asyncio.sleep(0.01)
            if not canvas._routes.socket.peers:
                break
        canvas.focus([node.id])
        assert comm[-1]["kind"] == "focus" and comm[-1]["seq"] == focus["seq"] + 3

        canvas.close()
        assert not path.exists()

    asyncio.run(scenario())


def listening_sockets() -> int:
    """This process's listening Unix sockets (/proc/net/unix's __SO_ACCEPTCON flag against our descriptors)."""
    with open("/proc/net/unix") as table:
        next(table)
        listening = {fields[6] for fields in map(str.split, table) if int(fields[3], 16) & 0x10000}
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    return len({link[8:-1] for link in links if link.startswith("socket:[")} & listening)


def test_a_canvas_closed_while_its_socket_starts_listening_leaves_no_socket(model: Path) -> None:
    """start_unix_server yields once its server is started: a canvas closed then (a designer opened and closed at
    once, or replaced by the toolbar's Open) kept listening, its socket open for the kernel's life."""

    async def scenario() -> None:
        before = listening_sockets()
        canvas = GraphCanvas(Document.open(model))
        await asyncio.sleep(0)  # the listener's task starts and waits for its server
        canvas.close()
        for _ in range(5):
            await asyncio.sleep(0)
        assert listening_sockets() == before

    asyncio.run(scenario())
