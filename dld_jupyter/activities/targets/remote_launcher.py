"""Runs on the target, inside a deployment: starts the worker in its own process group and never leaves it orphaned.

`python -m dld_jupyter.activities.targets.remote_launcher` (standard library only) starts
`python -m dld_jupyter.activities.worker -` as the leader of a new process group, announces the group on stderr
(`PID_MARK <pgid>`), relays its own stdin to the worker and lets the worker write to the SSH channel directly.
A heartbeat line on stderr every half second finds out when the connection is gone (the write fails once sshd has
closed the channel): then, as on SIGTERM/SIGHUP, the whole group gets SIGTERM, then SIGKILL after a grace period,
so a lost connection leaves no process on the target. The launcher exits as the worker did (same code or signal).
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
HEARTBEAT_S = 0.5
GRACE_S = 5.0


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


def _relay_stdin(worker: subprocess.Popen[bytes]) -> None:
    """Raw reads of fd 0 (no buffered reader whose lock would stop the interpreter's shutdown)."""
    assert worker.stdin is not None
    with contextlib.suppress(OSError):
        while chunk := os.read(0, 65536):
            worker.stdin.write(chunk)
            worker.stdin.flush()
    with contextlib.suppress(OSError):
        worker.stdin.close()


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
    finished = threading.Event()
    threading.Thread(target=_relay_stdin, args=(worker,), daemon=True).start()
    threading.Thread(target=_heartbeat, args=(worker, finished), daemon=True).start()
    code = worker.wait()
    finished.set()
    if code < 0:  # die of the same signal, so the SSH exit status says so
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    os._exit(main())  # at once: the stdin relay may still be blocked in a read
