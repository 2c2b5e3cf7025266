"""The server extension: kernel websockets answer without the 40 ms Nagle / delayed-ACK stall.

Each browser -> kernel message is answered by three small iopub messages written one by one; without TCP_NODELAY
the second waits for the client's delayed ACK (40 ms on Linux), so every widget round trip took >= 40 ms. Here a
real kernel behind the real server answers a comm message over a real websocket.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tornado.websocket import websocket_connect

from tests.browser.jupyter_server import JupyterServer

ECHO = """
def _target(comm, _open):
    @comm.on_msg
    def _echo(message):
        comm.send({"echo": message["content"]["data"]})
get_ipython().kernel.comm_manager.register_target("dld_echo", _target)
"""


def message(kind: str, content: dict[str, object]) -> str:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": kind, "username": "", "session": "test", "date": "",
              "version": "5.3"}
    return json.dumps({"header": header, "parent_header": {}, "metadata": {}, "content": content,
                       "channel": "shell", "buffers": []})


async def comm_round_trips(server: JupyterServer, kernel_id: str, count: int) -> list[float]:
    url = f"{server.url.replace('http', 'ws', 1)}/api/kernels/{kernel_id}/channels?token={server.token}"
    ws = await websocket_connect(url)
    try:
        await ws.write_message(message("execute_request", {"code": ECHO, "silent": False}))
        while json.loads(await ws.read_message())["msg_type"] != "execute_reply":
            pass
        comm_id = uuid.uuid4().hex
        await ws.write_message(message("comm_open", {"comm_id": comm_id, "target_name": "dld_echo", "data": {}}))
        await asyncio.sleep(0.3)
        times = []
        for i in range(count):
            start = time.perf_counter()
            await ws.write_message(message("comm_msg", {"comm_id": comm_id, "data": {"i": i}}))
            while True:
                reply = json.loads(await ws.read_message())
                if reply["msg_type"] == "comm_msg" and reply["content"]["data"].get("echo") == {"i": i}:
                    break
            times.append((time.perf_counter() - start) * 1000)
        return times
    finally:
        ws.close()


def test_kernel_websockets_have_no_nagle_stall(jupyter: JupyterServer) -> None:
    log = Path(jupyter.log_path).read_text()
    assert "dld_jupyter: kernel websockets use TCP_NODELAY" in log, "the server extension did not load"
    kernel = jupyter.api("/api/kernels", method="POST", body={"name": "python3"})
    assert isinstance(kernel, dict)
    try:
        # Its own thread: the browser tests' Playwright keeps an event loop running in this one.
        with ThreadPoolExecutor(1) as pool:
            times = pool.submit(asyncio.run, comm_round_trips(jupyter, kernel["id"], 25)).result(timeout=120)
    finally:
        jupyter.api(f"/api/kernels/{kernel['id']}", method="DELETE")
    # With the stall every round trip is >= 40 ms (48 ms measured here); without it a few ms.
    assert statistics.median(times) < 38, f"comm round trips (ms): {sorted(times)}"


async def relay_round_trips(server: JupyterServer, count: int) -> tuple[list[float], dict[str, int]]:
    """A kernel-side channel socket (here, on this test's loop) reached through the server's relay websocket."""
    from tornado.httpclient import HTTPClientError

    from dld_jupyter.widgets.canvas.channel_socket import ChannelSocket, decode, encode

    echo = ChannelSocket(lambda peer, content, buffers: peer.send({"echo": content}, buffers[::-1]))
    assert echo.token is not None
    await asyncio.sleep(0)
    base = f"{server.url.replace('http', 'ws', 1)}/dld/channel"
    refused = {}
    for name, url in {"no login": f"{base}/{echo.token}", "unknown": f"{base}/{'0' * 32}?token={server.token}",
                      "malformed": f"{base}/..%2Fkernel?token={server.token}"}.items():
        try:
            (await websocket_connect(url)).close()
            refused[name] = 101
        except HTTPClientError as error:
            refused[name] = error.code
    ws = await websocket_connect(f"{base}/{echo.token}?token={server.token}")
    try:
        times = []
        for i in range(count):
            start = time.perf_counter()
            await ws.write_message(encode({"i": i}, [b"a", b"bc"]), binary=True)
            answer = await ws.read_message()
            assert isinstance(answer, bytes)
            assert decode(answer) == ({"echo": {"i": i}}, [b"bc", b"a"])
            times.append((time.perf_counter() - start) * 1000)
    finally:
        ws.close()
        echo.close()
    return times, refused


def test_channel_relay_reaches_the_kernel_socket_for_logged_in_users_only(jupyter: JupyterServer) -> None:
    with ThreadPoolExecutor(1) as pool:
        times, refused = pool.submit(asyncio.run, relay_round_trips(jupyter, 25)).result(timeout=120)
    # an unknown channel is accepted, then closed with GONE so the canvas stops retrying (test_channel_relay.py)
    assert refused == {"no login": 403, "unknown": 101, "malformed": 400}
    # Frames are copied, not parsed: a round trip through the server costs a few ms (no Jupyter message path).
    assert statistics.median(times) < 20, f"relay round trips (ms): {sorted(times)}"
