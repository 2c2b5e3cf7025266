"""The remote worker as the engine sees it: a `WorkerProcess` whose pipes are fed from an SSH exec channel.

The channel's stdout and stderr are copied by the SSH loop into local pipes, so the engine's reader threads read
them as they read a local worker's. The launcher's process-group line and heartbeats are taken out of stderr.
`terminate`/`kill` signal the worker's process group on the target through a second exec channel. When the
connection drops mid-run, a line saying so is added to stderr and the exit status is 255 (as `ssh` reports it).
A target that stops answering without closing anything (a stopped sshd or machine, a silent network) is found by
the silence of the launcher's heartbeat: after `SILENCE_S` the connection is closed and the run ends the same way;
the launcher, no longer pinged (`remote_launcher.PING`), stops the worker's group on its side.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from typing import IO, Any

import asyncssh

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets.remote_launcher import HEARTBEAT, PID_MARK, PING, PING_S
from dld_jupyter.activities.targets.ssh_loop import call, ssh_loop
from dld_jupyter.activities.targets.ssh_session import SshSession

LAUNCH_TIMEOUT_S = 60.0
SILENCE_S = 10.0  # no heartbeat (sent every 0.5 s) for this long: the target has stopped answering
LOST = 255


class _ChannelWriter:
    """The worker's stdin: text written here goes to the channel (a session kind's requests)."""

    def __init__(self, process: asyncssh.SSHClientProcess[str]) -> None:
        self._process = process
        self.closed = False

    def write(self, text: str) -> int:
        if self.closed:
            raise ValueError("write to a closed worker input")
        ssh_loop().call_soon_threadsafe(self._process.stdin.write, text)
        return len(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            ssh_loop().call_soon_threadsafe(self._eof)

    async def ping(self) -> None:
        """Tell the launcher the caller is alive, until the input is closed (on the SSH loop)."""
        while not self.closed:
            with contextlib.suppress(Exception):
                self._process.stdin.write(PING.decode())
            await asyncio.sleep(PING_S)

    def _eof(self) -> None:
        with contextlib.suppress(Exception):
            self._process.stdin.write_eof()


class RemoteProcess:
    """See the module docstring; created by `start`."""

    def __init__(self, session: SshSession, process: asyncssh.SSHClientProcess[str], target: str) -> None:
        self.session, self._process, self.target = session, process, target
        out_r, self._out_w = os.pipe()
        err_r, self._err_w = os.pipe()
        self._stdout = os.fdopen(out_r, "r", encoding="utf-8", errors="replace")
        self._stderr = os.fdopen(err_r, "r", encoding="utf-8", errors="replace")
        self._stdin = _ChannelWriter(process)
        self._pgid: int | None = None
        self._pgid_known = threading.Event()
        self._code: int | None = None
        self._heard = time.monotonic()  # when the target last sent anything
        self._passing = 0  # lines being handed to the engine's pipes (a slow reader here is no silence there)
        self._silent = False
        self._ended: concurrent.futures.Future[int] = asyncio.run_coroutine_threadsafe(self._pump(), ssh_loop())

    @classmethod
    def start(cls, session: SshSession, command: str, staged: ActivitySpec, target: str) -> RemoteProcess:
        try:
            opened = session.conn.create_process(command, encoding="utf-8")

            async def start() -> asyncssh.SSHClientProcess[str]:
                return await opened

            process = call(start(), 30)
        except (asyncssh.Error, OSError) as error:
            raise UnavailableError(f"target {target}: the worker could not be started ({error})") from error
        remote = cls(session, process, target)
        remote._stdin.write(json.dumps(staged.to_dict()) + "\n")
        if not remote._pgid_known.wait(LAUNCH_TIMEOUT_S) and remote._code is None:
            remote.kill()
            raise UnavailableError(f"target {target}: the worker did not start within {LAUNCH_TIMEOUT_S:.0f} s")
        return remote

    # -- WorkerProcess ---------------------------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self._pgid or 0

    @property
    def stdin(self) -> IO[str] | None:
        return self._stdin  # type: ignore[return-value]  # write/flush/close: what Run uses of IO[str]

    @property
    def stdout(self) -> IO[str] | None:
        return self._stdout

    @property
    def stderr(self) -> IO[str] | None:
        return self._stderr

    @property
    def returncode(self) -> int | None:
        return self._code

    def poll(self) -> int | None:
        return self._code if self._ended.done() else None

    def wait(self, timeout: float | None = None) -> int:
        try:
            return self._ended.result(timeout)
        except concurrent.futures.TimeoutError:
            raise subprocess.TimeoutExpired("remote worker", timeout or 0.0) from None

    def terminate(self) -> None:
        self._signal_group("TERM")

    def kill(self) -> None:
        self._signal_group("KILL")

    def _signal_group(self, name: str) -> None:
        if self._pgid is None or self._ended.done():
            return
        with contextlib.suppress(Exception):  # the connection may be gone: the launcher stops the group then
            self.session.run(f"kill -{name} -- -{self._pgid} 2>/dev/null || true", timeout=15)

    # -- the SSH loop's side ---------------------------------------------------------------------------------------
    async def _copy(self, reader: Any, fd: int, stderr: bool) -> None:
        try:
            async for line in reader:
                self._heard = time.monotonic()
                if stderr and line == HEARTBEAT:
                    continue
                if stderr and line.startswith(PID_MARK):
                    self._pgid = int(line[len(PID_MARK) :])
                    self._pgid_known.set()
                    continue
                self._passing += 1
                try:
                    await asyncio.to_thread(os.write, fd, line.encode())
                finally:
                    self._passing -= 1
                    self._heard = time.monotonic()
        except (asyncssh.Error, OSError, asyncio.IncompleteReadError):
            pass

    async def _watch(self) -> None:
        """Close the connection when the target has been silent for SILENCE_S (the reads then end)."""
        while True:
            await asyncio.sleep(0.5)
            if self._pgid is not None and self._passing == 0 and time.monotonic() - self._heard > SILENCE_S:
                self._silent = True
                self.session.conn.abort()
                return

    async def _pump(self) -> int:
        tasks = [asyncio.ensure_future(self._watch()), asyncio.ensure_future(self._stdin.ping())]
        try:
            await asyncio.gather(
                self._copy(self._process.stdout, self._out_w, False),
                self._copy(self._process.stderr, self._err_w, True),
            )
            completed = await self._process.wait(check=False)
            self._code = self._lost(None) if self._silent else self._status(completed)
        except Exception as error:  # the connection dropped
            self._code = self._lost(error)
        finally:
            for task in tasks:
                task.cancel()
            self._pgid_known.set()
            for fd in (self._out_w, self._err_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
        return self._code

    def _status(self, completed: asyncssh.SSHCompletedProcess) -> int:
        if completed.exit_status is not None and completed.exit_status >= 0:
            return completed.exit_status
        if completed.exit_signal:
            with contextlib.suppress(KeyError):
                return -int(signal.Signals["SIG" + completed.exit_signal[0]])
        return self._lost(self.session.client.lost)

    def _lost(self, error: BaseException | None) -> int:
        detail = f" ({error})" if error else ""
        if self._silent:
            detail = (
                f" (the target stopped answering: nothing heard for {SILENCE_S:.0f} s, as when its SSH server or "
                "machine is stopped or the network is cut)"
            )
        message = (
            f"the connection to {self.target} was lost mid-run{detail}; the worker there is stopped with its "
            "process group. Check the network and the target, then run again\n"
        )
        with contextlib.suppress(OSError):
            os.write(self._err_w, message.encode())
        return LOST
