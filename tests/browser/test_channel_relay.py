"""The fast channel's relay in a real Jupyter server (issue 31): a dead channel is closed with GONE and no log line
holds the user's token (finding 8); a flood from either side waits in TCP, not in the server's memory (finding 7).

Before: a canvas whose kernel had ended retried its channel, each retry a 404 that tornado logged with the full URL,
`?token=<the user's Jupyter token>` included; and frames from the browser were written to the kernel's socket
without waiting, so a kernel that read slower than the browser sent grew the server (+291 MB on a flood).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tornado.httpclient import HTTPClientError
from tornado.websocket import websocket_connect

from dld_jupyter.channel_frames import FRAME_HEADER, socket_path
from dld_jupyter.lab.channel_relay import GONE
from tests.browser.jupyter_server import JupyterServer

FLOOD_BYTES = 192 * 2**20  # what a flood may push; the server must hold only a bounded part of it
FRAME = b"x" * 2**16


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))) / 1024


def in_thread(coroutine: Any) -> Any:
    """Its own loop in its own thread: the browser tests' Playwright keeps an event loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=180)


def relay(server: JupyterServer, token: str) -> str:
    return f"{server.url.replace('http', 'ws', 1)}/dld/channel/{token}?token={server.token}"


async def dead_and_malformed(server: JupyterServer) -> tuple[list[int | None], int]:
    codes = []
    for _ in range(3):  # a canvas's retries after its kernel ended
        ws = await websocket_connect(relay(server, "0" * 32))
        assert await ws.read_message() is None  # accepted, then closed at once
        codes.append(ws.close_code)
    try:
        await websocket_connect(relay(server, "not-a-channel"))
        malformed = 101
    except HTTPClientError as error:
        malformed = error.code
    return codes, malformed


def test_a_dead_channel_is_closed_with_gone_and_no_log_line_holds_the_token(jupyter: JupyterServer) -> None:
    log = Path(jupyter.log_path)
    start = log.stat().st_size
    codes, malformed = in_thread(dead_and_malformed(jupyter))
    assert codes == [GONE] * 3, "the browser reads GONE and stops retrying (js/src/widgets/canvas/channel.ts)"
    assert malformed == 400
    deadline = time.monotonic() + 10
    while "/dld/channel/not-a-channel" not in (written := log.read_text()[start:]) and time.monotonic() < deadline:
        time.sleep(0.1)  # the server's log line of the refused request
    assert "/dld/channel/not-a-channel" in written, "the refused request was not logged at all"
    assert jupyter.token not in written, [line for line in written.splitlines() if jupyter.token in line]


class Kernel:
    """A stand-in for a kernel's channel socket that reads nothing (busy), or writes frames as fast as it can."""

    def __init__(self, token: str, flood: bool) -> None:
        self.path = socket_path(token)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(self.path))
        self.listener.listen(1)
        self.sent = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(flood,), daemon=True)
        self.thread.start()

    def _serve(self, flood: bool) -> None:
        peer, _ = self.listener.accept()
        peer.settimeout(0.5)
        frame = FRAME_HEADER.pack(len(FRAME)) + FRAME
        with peer:
            while not self.stop.is_set():
                if not flood:
                    time.sleep(0.05)
                    continue
                try:
                    peer.sendall(frame)
                    self.sent += len(FRAME)
                except TimeoutError:  # the relay stopped reading: back-pressure reached this socket
                    continue
                except OSError:
                    return
                if self.sent >= FLOOD_BYTES:
                    self.stop.wait()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.listener.close()
        self.path.unlink(missing_ok=True)


async def flood(server: JupyterServer, to_kernel: bool) -> tuple[int, float]:
    """Flood one way for at most 20 s; (bytes the flooding side got rid of, server RSS growth in MB at the end)."""
    token = ("a" if to_kernel else "b") * 32
    kernel = Kernel(token, flood=not to_kernel)
    pid = server.process.pid
    before = rss_mb(pid)
    ws = await websocket_connect(relay(server, token), max_message_size=2**20)
    sent, deadline = 0, time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            if to_kernel:
                try:
                    await asyncio.wait_for(ws.write_message(FRAME, binary=True), 2)
                except TimeoutError:
                    break  # the server stopped reading the websocket: back-pressure reached the sender
                sent += len(FRAME)
                if sent >= FLOOD_BYTES:
                    break
            else:  # this browser reads nothing; the kernel writes what it can
                await asyncio.sleep(0.5)
                sent = kernel.sent
                if sent >= FLOOD_BYTES or kernel.stop.is_set():
                    break
        await asyncio.sleep(1)  # what the server buffered is still held: measure now
        return sent, rss_mb(pid) - before
    finally:
        ws.close()
        kernel.close()


def test_a_flood_waits_in_tcp_not_in_the_server(jupyter: JupyterServer) -> None:
    to_kernel_sent, to_kernel_growth = in_thread(flood(jupyter, to_kernel=True))
    to_browser_sent, to_browser_growth = in_thread(flood(jupyter, to_kernel=False))
    print(f"browser -> busy kernel: {to_kernel_sent / 2**20:.0f} MB sent, server RSS {to_kernel_growth:+.0f} MB; "
          f"kernel -> idle browser: {to_browser_sent / 2**20:.0f} MB sent, server RSS {to_browser_growth:+.0f} MB")
    assert to_kernel_growth < 48, f"the server grew {to_kernel_growth:.0f} MB holding a browser's flood"
    assert to_browser_growth < 48, f"the server grew {to_browser_growth:.0f} MB holding a kernel's flood"
    assert to_kernel_sent < FLOOD_BYTES and to_browser_sent < FLOOD_BYTES, "nothing pushed back on the flood"
