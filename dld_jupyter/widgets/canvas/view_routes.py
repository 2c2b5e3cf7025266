"""Which path each view of a widget reads, and the sequence numbers that keep both paths in order.

A view starts on the comm (its ``hello`` comes that way). Once its fast channel is open it sends ``attach`` over the
socket; from then on every message goes to it over the socket. The comm still carries each message while some view
reads only the comm, or when no view is attached at all. Every message carries ``seq``: a view that gets one twice
(over both paths) or early (the socket overtook the comm) applies each once, in order (js/.../canvas/inbox.ts).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from dld_jupyter.frontdoor.soon import on_loop
from dld_jupyter.widgets.canvas.channel_socket import ChannelSocket, Peer, encode

Send = Callable[[dict[str, Any], list[bytes]], None]


class ViewRoutes:
    def __init__(self, comm_send: Send, on_message: Send) -> None:
        self._comm_send = comm_send
        self._on_message = on_message
        self.seq = 0
        self.comm_views: set[str] = set()
        self._lock = threading.Lock()  # numbering and routing of one message, as one step (loading thread too)
        self.socket = ChannelSocket(self._from_socket)

    @property
    def token(self) -> str | None:
        """What the browser needs to reach the socket through the server's relay; None without a socket."""
        return self.socket.token

    def attached(self) -> list[Peer]:
        return [p for p in self.socket.peers if p.view is not None]

    def hello(self, view: object, lost: bool = False) -> None:
        """A view asked for a snapshot over the comm: it reads the comm until it attaches. ``lost``: its socket
        dropped, though this kernel may not have read the end of it yet: that peer is no longer the view's."""
        if not isinstance(view, str) or not view:
            return
        with self._lock:
            for peer in self.attached():
                if peer.view == view and lost:
                    peer.view = None
            if not any(p.view == view for p in self.attached()):
                self.comm_views.add(view)

    def bye(self, view: object) -> None:
        """A view was closed."""
        if isinstance(view, str):
            self.comm_views.discard(view)

    def send(self, content: Mapping[str, Any], buffers: list[bytes]) -> None:
        with self._lock:
            self.seq += 1
            message = {**content, "seq": self.seq}
            attached = self.attached()
            if attached:
                payload = encode(message, buffers)
                for peer in attached:
                    if self.socket.on_loop_thread():
                        peer.write(payload)
                    else:  # the socket belongs to the kernel's loop; the views reorder by seq
                        on_loop(self.socket.loop, partial(peer.write, payload))
            if self.comm_views or not attached:
                self._comm_send(message, buffers)

    def _from_socket(self, peer: Peer, content: dict[str, Any], buffers: list[bytes]) -> None:
        if content.get("kind") == "attach":
            with self._lock:  # between two messages: every later one goes to this socket
                peer.view = str(content.get("view") or "")
                self.comm_views.discard(peer.view)
                peer.send({"kind": "attached", "seq": self.seq})
            return
        self._on_message(content, buffers)

    def close(self) -> None:
        self.socket.close()
