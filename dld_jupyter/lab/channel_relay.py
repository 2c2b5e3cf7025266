"""Jupyter Server handler: a websocket that relays a widget's messages to its kernel's channel socket, unparsed.

A comm message from the browser to a kernel crosses the server twice as a Jupyter message (parsed, re-signed, dated,
rate-checked), is queued behind the kernel's shell dispatch, and costs two extra status messages that JupyterLab
re-renders its busy indicators for. For the canvas's edits that path took 15-25 ms where the kernel needed 1-2 ms.
A widget that wants a faster path opens a Unix socket in the kernel (``dld_jupyter.widgets.canvas.channel_socket``) and
tells the browser its token; the browser connects here, and this handler copies length-prefixed frames both ways.

Same authentication and authorization as the kernel websockets: an authenticated user allowed to execute code in
kernels, since the socket leads into one. The socket's name is a random token in the Jupyter runtime directory
(owner-only), never a path taken from the request. A server without this extension simply refuses the websocket, and
the widget keeps using its comm.

A channel whose socket is gone (its kernel ended, its widget closed) is accepted and closed at once with GONE, the
one answer a browser's WebSocket can read (a refused handshake is only "failed", like a network blip), so the canvas
stops retrying; before, every retry was a 404 logged by tornado with the request's full URL, the user's Jupyter token
in its query (issue 31). No log line of this handler names the query. Frames are copied with back-pressure both ways:
the kernel's socket is not read while the websocket's write is pending, and the websocket is not read while the
socket's buffer is full, so a flood from either side waits in TCP instead of growing the server (+291 MB before).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from dld_jupyter.channel_frames import FRAME_HEADER, socket_path

TOKEN = re.compile(r"[0-9a-f]{32}")
GONE = 4404  # websocket close code: no such channel any more (js/src/widgets/canvas/fast_channel.ts stops retrying)


class ChannelRelayHandler(WebSocketMixin, WebSocketHandler, JupyterHandler):
    """``/dld/channel/<token>``: websocket <-> the kernel-side channel socket named by ``token``."""

    auth_resource = "kernels"
    _reader: asyncio.StreamReader | None = None
    _writer: asyncio.StreamWriter | None = None

    def set_default_headers(self) -> None:
        """JupyterHandler's default headers make no sense on a websocket (as in the kernel websocket handler)."""

    async def get(self, token: str) -> None:
        if self.current_user is None:  # as jupyter_server's ws_authenticated (not in every 2.x release)
            raise web.HTTPError(403)
        if not await ensure_async(self.authorizer.is_authorized(self, self.current_user, "execute", "kernels")):
            raise web.HTTPError(403)
        if not TOKEN.fullmatch(token):
            raise web.HTTPError(400, "A channel token is 32 hexadecimal digits.")
        path = socket_path(token)
        try:
            self._reader, self._writer = await asyncio.open_unix_connection(str(path))
        except (OSError, NotImplementedError) as error:  # the widget closed, its kernel ended, no Unix sockets
            self.log.debug("dld channel relay: no channel socket (%s): closed with %d", type(error).__name__, GONE)
        try:
            await super().get(token)
        finally:
            if self.ws_connection is None and self._writer is not None:  # not upgraded: no relay to keep
                self._writer.close()

    def open(self, *args: Any, **kwargs: Any) -> None:
        if self._reader is None:  # gone for good: said in a way the browser can read, so it stops retrying
            self.close(GONE, "no such channel: its kernel or widget has closed")
            return
        super().open(*args, **kwargs)  # the mixin's keep-alive pings
        self.set_nodelay(True)
        self._pump = asyncio.ensure_future(self._to_browser())  # held: a task only weakly referenced may vanish

    async def _to_browser(self) -> None:
        reader = self._reader
        assert reader is not None
        try:
            while True:
                (size,) = FRAME_HEADER.unpack(await reader.readexactly(FRAME_HEADER.size))
                await self.write_message(await reader.readexactly(size), binary=True)
        except (asyncio.IncompleteReadError, ConnectionError, WebSocketClosedError):
            pass
        finally:
            self.close()

    async def on_message(self, message: str | bytes) -> None:
        """One frame for the kernel. Tornado reads the next one only once this returns, and drain() waits while the
        socket's buffer is over its high-water mark (a busy kernel, a flood), so the browser's excess stays in TCP."""
        data = message.encode() if isinstance(message, str) else message
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        writer.write(FRAME_HEADER.pack(len(data)) + data)
        with contextlib.suppress(ConnectionError):  # the kernel's end went away: _to_browser ends the websocket
            await writer.drain()

    def on_close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    def _request_summary(self) -> str:
        """Tornado names a request by its URI, whose query carries the user's Jupyter token (a websocket cannot send
        the header): the path alone, so no log line of this handler holds the token."""
        return f"{self.request.method} {self.request.path} ({self.request.remote_ip})"

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        """Tornado's, without the request's repr (its URI again) that it adds to an uncaught exception."""
        if isinstance(value, web.HTTPError):
            if value.log_message:
                text = value.log_message % value.args if value.args else value.log_message
                self.log.warning("%d %s: %s", value.status_code, self._request_summary(), text)
            return
        self.log.error("Uncaught exception %s", self._request_summary(), exc_info=(typ, value, tb))


def add_handlers(serverapp: Any) -> None:
    base = serverapp.web_app.settings.get("base_url", "/")
    pattern = f"{base.rstrip('/')}/dld/channel/([^/]+)"
    serverapp.web_app.add_handlers(".*$", [(pattern, ChannelRelayHandler)])

