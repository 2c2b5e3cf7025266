"""Kernel side of the contents-API transfer: a designer tab whose kernel cannot see the file it opens (a remote
kernel: Enterprise Gateway, a kernel on another host or in another container) receives the file from the browser.

Why: a designer tab asks its kernel to read the file from disk (a 2 GB model is never downloaded into the browser).
That holds while the kernel shares the server's file system; a remote kernel does not, and `dld.open('model.onnx')`
failed there with "no such file". The tab first asks `sees(path, size)`; when the kernel cannot see that file (or
sees another file of another size at that path), the tab reads it through the server (js/src/lab/transfer.ts) and
sends it over one comm in messages of at most 4 MiB (tornado refuses websocket messages over 10 MiB); this module
writes the chunks, in order, into a private temporary folder under the file's own name and answers the path to open.

Messages (same names in js/src/lab/transfer.ts), on comm target `dld_jupyter.transfer`:
  open data: {name, size}
  browser → kernel: chunk{offset} + one binary buffer (≤ CHUNK bytes), done{}
  kernel → browser: reply{ok, path, error} (after done, or at the first error; the comm then closes)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

TARGET = "dld_jupyter.transfer"
CHUNK = 4 * 1024 * 1024  # bytes per message: well under tornado's 10 MiB websocket limit


def sees(path: str, size: int) -> bool:
    """Whether this kernel reads the server's file at `path` (relative to its working directory): a file of that
    size is there."""
    try:
        return os.path.isfile(path) and os.path.getsize(path) == int(size)
    except OSError:
        return False


class Receiver:
    """Writes one file's chunks, in order, into a temporary folder of its own (owner-only, as mkdtemp makes it)."""

    def __init__(self, name: str, size: int) -> None:
        base = Path(str(name)).name  # a name, never a path: "../x" stays in the folder
        if not base or base in (".", ".."):
            raise ValueError(f"cannot receive a file named {name!r}: give the file's name, such as model.onnx")
        if int(size) < 0:
            raise ValueError(f"cannot receive {base}: its size is {size}")
        self.size = int(size)
        self.path = Path(tempfile.mkdtemp(prefix="dld-transfer-")) / base
        self._file = self.path.open("wb")
        self.written = 0

    def chunk(self, offset: int, data: bytes) -> None:
        if int(offset) != self.written:
            raise ValueError(f"chunk at byte {offset} of {self.path.name} arrived after byte {self.written}")
        if len(data) > CHUNK:
            raise ValueError(f"a chunk of {len(data)} bytes is larger than {CHUNK}")
        if self.written + len(data) > self.size:
            raise ValueError(f"{self.path.name} is larger than the {self.size} bytes announced")
        self._file.write(data)
        self.written += len(data)

    def finish(self) -> Path:
        self._file.close()
        if self.written != self.size:
            raise ValueError(f"{self.path.name}: {self.written} of {self.size} bytes arrived; open it again")
        return self.path

    def abandon(self) -> None:
        """Remove what was written (a failed or cancelled transfer leaves nothing behind)."""
        self._file.close()
        self.path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: not ours to remove
            self.path.parent.rmdir()


def handle(receiver: Receiver, data: dict[str, Any], buffers: list[Any]) -> dict[str, Any] | None:
    """One browser message; the reply to send, or None while chunks keep coming."""
    kind = data.get("kind")
    if kind == "chunk":
        if len(buffers) != 1:
            raise ValueError(f"a chunk message carries one buffer, not {len(buffers)}")
        receiver.chunk(int(data.get("offset", -1)), bytes(buffers[0]))
        return None
    if kind == "done":
        return {"kind": "reply", "ok": True, "path": str(receiver.finish()), "error": None}
    raise ValueError(f"unknown transfer message {kind!r}")


def register() -> None:
    """Register the comm target in the running kernel (idempotent)."""
    from comm import get_comm_manager

    manager = get_comm_manager()
    if TARGET in getattr(manager, "targets", {}):
        return

    def on_open(comm: Any, open_msg: dict[str, Any]) -> None:
        content = open_msg["content"]["data"]
        try:
            receiver = Receiver(str(content.get("name", "")), int(content.get("size", -1)))
        except (ValueError, OSError) as error:
            comm.send({"kind": "reply", "ok": False, "path": None, "error": str(error)})
            comm.close()
            return

        def on_msg(msg: dict[str, Any]) -> None:
            try:
                reply = handle(receiver, msg["content"]["data"], list(msg.get("buffers") or []))
            except (ValueError, OSError) as error:
                receiver.abandon()
                reply = {"kind": "reply", "ok": False, "path": None, "error": str(error)}
            if reply is not None:
                comm.send(reply)
                comm.close()

        comm.on_msg(on_msg)

    manager.register_target(TARGET, on_open)
