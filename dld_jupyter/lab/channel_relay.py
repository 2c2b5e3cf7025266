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
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from dld_jupyter.channel_frames import FRAME_HEADER, socket_path

TOKEN = re.compile(r"[0-9a-f]{32}")


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
        except (OSError, NotImplementedError) as error:  # the widget closed, its kernel restarted, no Unix sockets
            raise web.HTTPError(404, f"No channel {token}: {error}") from error
        try:
            await super().get(token)
        finally:
            if self.ws_connection is None:  # not upgraded (not a websocket request): no relay to keep
                self._writer.close()

    def open(self, *args: Any, **kwargs: Any) -> None:
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

    def on_message(self, message: str | bytes) -> None:
        data = message.encode() if isinstance(message, str) else message
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(FRAME_HEADER.pack(len(data)) + data)

    def on_close(self) -> None:
        if self._writer is not None:
            self._writer.close()


def add_handlers(serverapp: Any) -> None:
    base = serverapp.web_app.settings.get("base_url", "/")
    pattern = f"{base.rstrip('/')}/dld/channel/([^/]+)"
    serverapp.web_app.add_handlers(".*$", [(pattern, ChannelRelayHandler)])

