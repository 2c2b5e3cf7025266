"""Jupyter Server extension: kernel websockets without Nagle's algorithm, the relay of the widgets' fast channels
(``dld_jupyter.lab.channel_relay``) and the operator documentation browser's data (``operator_docs_handler``).

Every message the browser sends a kernel is answered on iopub by three small messages (status busy, the reply, status
idle), which the server writes to the websocket one by one. With Nagle's algorithm on (tornado's default), the second
write waits for the browser to acknowledge the first, and the browser delays that ACK by 40 ms (Linux delayed ACK):
every canvas edit, every widget message, took >= 40 ms longer than the kernel needed. Setting TCP_NODELAY on the
kernel websocket removes that wait (a comm round trip over a real websocket: 48 ms -> 6 ms here; see
tests/browser/test_server_extension.py).

Only the default connection class is replaced; a server configured with its own (a gateway, a custom class) is left
as it is.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection


class NoDelayWebsocketConnection(ZMQChannelsWebsocketConnection):
    """The default ZMQ <-> websocket bridge, with TCP_NODELAY set on the websocket once it is open."""

    def connect(self) -> Any:
        # The server calls this from the handler's open(), after the handshake: the websocket exists.
        if self.websocket_handler.ws_connection is not None:
            self.websocket_handler.set_nodelay(True)
        return super().connect()


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from dld_jupyter.lab import channel_relay, operator_docs_handler

    channel_relay.add_handlers(serverapp)
    operator_docs_handler.add_handlers(serverapp)
    settings = serverapp.web_app.settings
    if settings.get("kernel_websocket_connection_class") is ZMQChannelsWebsocketConnection:
        settings["kernel_websocket_connection_class"] = NoDelayWebsocketConnection
        serverapp.log.info("dld_jupyter: kernel websockets use TCP_NODELAY (no 40 ms Nagle/delayed-ACK stalls)")
    else:
        serverapp.log.info("dld_jupyter: custom kernel websocket connection class kept; TCP_NODELAY not set")
