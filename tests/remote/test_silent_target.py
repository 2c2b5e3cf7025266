"""A target that stops answering without closing anything (issue 36, item 2), on the real loopback sshd: the sshd
processes serving the run's connection are stopped (SIGSTOP) mid-run. The run ends within 30 s with a clear error
(the launcher's heartbeat went silent), and the launcher there, no longer pinged, stops the worker's group."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.scheduler import start_activity
from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.ssh import SshTarget
from tests.remote.conftest import Sshd
from tests.remote.test_ssh_target import BUNDLED, _gone


def _tree(pid: int) -> list[int]:
    """`pid` and every process under it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += children.get(found[-1], [])
    return found


def _sshd_serving(pids: list[int]) -> list[int]:
    found = []
    for pid in pids:
        for member in _tree(pid):
            try:
                if (Path("/proc") / str(member) / "comm").read_text().strip().startswith("sshd"):
                    found.append(member)
            except OSError:
                continue
    return found


def test_a_stopped_sshd_ends_the_run_clearly_and_stops_the_worker(
    deployed: SshTarget, sshd: Sshd, tmp_path: Path
) -> None:
    before = set(sshd.children())
    connection = deployed.connection.__class__(**{**deployed.connection.to_dict(), "name": "stopped-sshd"})
    target = SshTarget(connection, deployed.policy, deployed.secrets)
    spec = OrtProfileSpec(model=str(BUNDLED), iterations=100000, warmup=1, output=str(tmp_path / "long.json"))
    run = start_activity(spec, target=target, remember=False)
    deadline = time.monotonic() + 60
    while run.pid is None or run.progress is None:
        assert time.monotonic() < deadline and not run.done, run.result
        time.sleep(0.05)
    pgid = run.pid
    stopped = _sshd_serving(sorted(set(sshd.children()) - before))
    assert stopped
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    started = time.monotonic()
    try:
        result = run.wait(30)
        ended = time.monotonic() - started
        assert result is not None, "the run still waits 30 s after its target stopped answering"
        assert result.status is ActivityStatus.FAILED
        assert "the target stopped answering: nothing heard for 10 s" in (result.error or ""), result.error
        assert _gone(pgid, within=25.0)  # stopped by the launcher, while its sshd is still stopped
        gone = time.monotonic() - started
        print(f"run ended {ended:.1f} s after SIGSTOP; worker group gone after {gone:.1f} s")
        assert not (tmp_path / "long.json").exists()
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        run.cancel()
        ssh_session.forget(connection.name)
