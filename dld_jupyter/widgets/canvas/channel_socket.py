"""A widget's fast channel in the kernel: a Unix socket that the browser reaches through the server's relay
(``dld_jupyter.lab.channel_relay``), so that an edit and its reply skip the Jupyter message path.

Runs on the kernel's event loop (the main thread, where cells and comm messages run too), so a message from the
socket is handled between kernel messages, never beside them. Each peer is one view of the widget. A payload is one
message: a 4-byte JSON length, the JSON, a 4-byte buffer count, each buffer's 4-byte length, then the buffers.
Without an event loop (a script), or where the socket cannot be made, there is no channel and the comm carries all;
the same when DLD_CHANNEL_DIR is not a folder of this user's alone (mode 0700), said once per kernel.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import secrets
import socket
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dld_jupyter.channel_frames import FRAME_HEADER, channel_dir_problem, socket_path
from dld_jupyter.frontdoor.soon import running_loop

log = logging.getLogger(__name__)
U32 = FRAME_HEADER
_LIVE: set[Path] = set()  # socket files of this kernel, removed when it shuts down
_TOLD: set[str] = set()  # channel folder problems already said (once per kernel, not once per canvas)


@atexit.register
def _remove_sockets() -> None:
    for path in list(_LIVE):
        with contextlib.suppress(OSError):
            path.unlink()

Handler = Callable[["Peer", dict[str, Any], list[bytes]], None]


def encode(content: dict[str, Any], buffers: list[bytes] | None = None) -> bytes:
    body = json.dumps(content, separators=(",", ":")).encode()
    parts = [U32.pack(len(body)), body, U32.pack(len(buffers or []))]
    parts += [U32.pack(len(b)) for b in buffers or []]
    parts += [bytes(b) for b in buffers or []]
    return b"".join(parts)


def decode(payload: bytes) -> tuple[dict[str, Any], list[bytes]]:
    view = memoryview(payload)
    (size,) = U32.unpack_from(view, 0)
    content = json.loads(bytes(view[4 : 4 + size]))
    at = 4 + size
    (count,) = U32.unpack_from(view, at)
    at += 4
    sizes = [U32.unpack_from(view, at + 4 * i)[0] for i in range(count)]
    at += 4 * count
    buffers = []
    for n in sizes:
        buffers.append(bytes(view[at : at + n]))
        at += n
    if not isinstance(content, dict):
        raise ValueError("a channel message is a JSON object")
    return content, buffers


class Peer:
    """One connected view."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.view: str | None = None  # the view's id, once it said which it is

    def send(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        self.write(encode(content, buffers))

    def write(self, payload: bytes) -> None:
        """One encoded message (encode it once for every peer it goes to)."""
        if not self.writer.is_closing():
            self.writer.write(FRAME_HEADER.pack(len(payload)) + payload)


class ChannelSocket:
    """Listens on ``socket_path(token)``; ``on_message`` gets each decoded message with the peer it came from."""

    def __init__(self, on_message: Handler) -> None:
        self._on_message = on_message
        self.peers: list[Peer] = []
        self.token: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._loop = running_loop()
        self._thread = threading.get_ident()
        if self._loop is None or not hasattr(socket, "AF_UNIX"):
            return
        problem = channel_dir_problem()
        if problem is not None:  # a shared or foreign folder: the comm carries everything, as without a relay
            if problem not in _TOLD:
                _TOLD.add(problem)
                log.warning("dld_jupyter: no fast channel for the canvas: %s", problem)
            return
        token = secrets.token_hex(16)
        path = socket_path(token)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            sock.bind(str(path))
            os.chmod(path, 0o600)
            sock.listen(8)
        except OSError as error:  # e.g. a runtime dir path too long for a socket: the comm carries everything
            sock.close()
            log.info("no fast channel (%s): widget messages go through the comm", error)
            return
        self.token = token
        self._path = path
        _LIVE.add(path)
        self._listening = self._loop.create_task(self._listen(sock))

    async def _listen(self, sock: socket.socket) -> None:
        if self.token is None:  # closed before the loop got here
            sock.close()
            return
        server = await asyncio.start_unix_server(self._serve, sock=sock)
        if self.token is None:  # closed while the server started (it yields once started): it listened on, unclosed
            server.close()
            return
        self._server = server

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = Peer(writer)
        self.peers.append(peer)
        try:
            while True:
                (size,) = FRAME_HEADER.unpack(await reader.readexactly(FRAME_HEADER.size))
                content, buffers = decode(await reader.readexactly(size))
                try:
                    self._on_message(peer, content, buffers)
                except Exception:  # a handler's failure must not end the channel
                    log.exception("fast channel message failed")
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, struct.error):
            pass  # the view went away, or sent something that is not a channel message: this peer ends
        finally:
            self.peers.remove(peer)
            writer.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The kernel's loop the socket is served on (None: no socket)."""
        return self._loop

    def on_loop_thread(self) -> bool:
        return threading.get_ident() == self._thread

    def close(self) -> None:
        if self.token is None:
            return
        self.token = None
        _LIVE.discard(self._path)
        with contextlib.suppress(OSError):
            self._path.unlink()
        if self._server is not None:
            self._server.close()
        for peer in list(self.peers):
            peer.writer.close()
