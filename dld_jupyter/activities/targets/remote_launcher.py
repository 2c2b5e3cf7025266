"""Runs on the target, inside a deployment: starts the worker in its own process group and never leaves it orphaned.

`python <deployment>/lib/dld_jupyter/activities/targets/remote_launcher.py` (standard library only) starts
`python -m dld_jupyter.activities.worker -` as the leader of a new process group, announces the group on stderr
(`PID_MARK <pgid>`), relays its own stdin to the worker and lets the worker write to the SSH channel directly.
A heartbeat line on stderr every half second finds out when the connection is gone (the write fails once sshd has
closed the channel) and tells the caller this side is alive. The caller sends a ping line on stdin every second
(taken out here, never relayed): when none has come for `SILENCE_S` while stdin is open, the caller, its network
or the SSH server serving it has stopped answering (a stopped sshd closes nothing, so no write fails). In both
cases, as on SIGTERM/SIGHUP, the whole group gets SIGTERM, then SIGKILL after a grace period, so a lost or silent
connection leaves no process on the target. The launcher exits as the worker did (same code or signal).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from types import FrameType

PID_MARK = "\x00dld-worker-pgid "
HEARTBEAT = "\x00dld-heartbeat\n"
PING = b"\x00dld-ping\n"  # from the caller, every PING_S
HEARTBEAT_S = 0.5
PING_S = 1.0
SILENCE_S = 15.0  # no ping for this long while stdin is open: the caller is gone
GRACE_S = 5.0


class _Heard:
    """When the caller was last heard on stdin, and whether stdin has ended (then nothing more is awaited)."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.ended = False


def _stop_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _relay_stdin(worker: subprocess.Popen[bytes], heard: _Heard) -> None:
    """Raw reads of fd 0 (no buffered reader whose lock would stop the interpreter's shutdown); whole lines go to the
    worker, the caller's pings do not."""
    assert worker.stdin is not None
    pending = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(0, 65536):
            heard.last = time.monotonic()
            *lines, pending = (pending + chunk).split(b"\n")
            relayed = b"".join(line + b"\n" for line in lines if line + b"\n" != PING)
            if relayed:
                worker.stdin.write(relayed)
                worker.stdin.flush()
        if pending:
            worker.stdin.write(pending)
    heard.ended = True
    with contextlib.suppress(OSError):
        worker.stdin.close()


def _watchdog(worker: subprocess.Popen[bytes], heard: _Heard, finished: threading.Event) -> None:
    while not finished.wait(PING_S):
        if not heard.ended and time.monotonic() - heard.last > SILENCE_S:
            _stop_group(worker.pid)
            return


def _heartbeat(worker: subprocess.Popen[bytes], finished: threading.Event) -> None:
    while not finished.wait(HEARTBEAT_S):
        try:
            os.write(2, HEARTBEAT.encode())
        except OSError:  # the channel is closed: the connection is gone
            _stop_group(worker.pid)
            return


def main() -> int:
    worker = subprocess.Popen(
        [sys.executable, "-m", "dld_jupyter.activities.worker", "-"], stdin=subprocess.PIPE, start_new_session=True
    )

    def on_signal(signum: int, frame: FrameType | None) -> None:
        _stop_group(worker.pid)

    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, on_signal)
    os.write(2, f"{PID_MARK}{worker.pid}\n".encode())
    finished, heard = threading.Event(), _Heard()
    threading.Thread(target=_relay_stdin, args=(worker, heard), daemon=True).start()
    threading.Thread(target=_heartbeat, args=(worker, finished), daemon=True).start()
    threading.Thread(target=_watchdog, args=(worker, heard, finished), daemon=True).start()
    code = worker.wait()
    finished.set()
    if code < 0:  # die of the same signal, so the SSH exit status says so
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    os._exit(main())  # at once: the stdin relay may still be blocked in a read
