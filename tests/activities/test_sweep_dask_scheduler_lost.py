"""A Dask scheduler that dies mid-sweep fails the points it had, clearly (issue 36, item 5).

Before: `dld sweep --executor dask://…` whose scheduler was killed exited 0 with every point "cancelled before it
started" (as if the user had cancelled) and a raw traceback of Dask's reconnect loop. Now the points are failed
with "the Dask scheduler at tcp://… is gone", the exit is 1 within seconds, stderr holds no traceback, and
`dld sweep --resume` completes them. Real processes: `dask scheduler`, `dask worker` and `dld sweep`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dld_jupyter.cli.main import main

RESNET8 = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    address = f"127.0.0.1:{port}"
    logs = tmp_path / "dask.log"
    with logs.open("wb") as log:
        scheduler = subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                      "--no-dashboard"], stdout=log, stderr=log, start_new_session=True)
        worker = None
        try:
            def answers() -> bool:
                with socket.socket() as probe:
                    return probe.connect_ex(("127.0.0.1", port)) == 0

            wait_for(answers, 60, "the scheduler")
            worker = subprocess.Popen([str(BIN / "dask"), "worker", f"tcp://{address}", "--nworkers", "1",
                                       "--nthreads", "1", "--no-dashboard"], stdout=log, stderr=log,
                                      start_new_session=True)
            # the sweep refuses a scheduler with no worker (exit 2): on a loaded runner the worker takes seconds
            from distributed import Client

            with Client(f"tcp://{address}", timeout=60) as client:
                client.wait_for_workers(1, timeout=120)
            yield scheduler, address
        finally:
            for process in (worker, scheduler):
                if process is not None and process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


def test_a_killed_scheduler_fails_the_points_and_resume_completes_them(
    cluster: tuple[subprocess.Popen[bytes], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scheduler, address = cluster
    model = tmp_path / "m.onnx"
    model.write_bytes(RESNET8.read_bytes())
    out = tmp_path / "out"
    sweep = subprocess.Popen(
        [sys.executable, "-m", "dld_jupyter.cli.main", "sweep", str(model), "--batch", "1,2,3", "--iterations",
         "1000", "--warmup", "0", "--out", str(out), "--executor", f"dask://{address}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    manifest = out / "sweep.json"
    def handed_to_dask() -> bool:
        if sweep.poll() is not None:  # ended before its points reached the cluster: say why
            out, err = sweep.communicate()
            raise AssertionError(f"dld sweep exited {sweep.returncode} early:\n{out.decode()}\n{err.decode()}")
        text = manifest.read_text() if manifest.is_file() else ""
        return '"queued"' in text or '"running"' in text

    wait_for(handed_to_dask, 180, "the points to be queued on the cluster")
    time.sleep(2.0)  # the first point is being measured on the worker
    os.killpg(scheduler.pid, signal.SIGKILL)
    killed = time.monotonic()
    stdout, stderr = sweep.communicate(timeout=60)
    assert time.monotonic() - killed < 30
    text = stdout.decode() + stderr.decode()
    assert sweep.returncode == 1, text
    assert "Traceback" not in text and "cancelled before it started" not in text, text
    points = json.loads(manifest.read_text())["points"]
    lost = [p for p in points if p["state"] == "failed"]
    assert lost, points
    for point in lost:
        assert point["reason"].startswith(f"the Dask scheduler at tcp://{address} is gone"), point["reason"]
        assert f"dld sweep --resume {out}" in point["reason"]
    assert main(["sweep", "--resume", str(out)]) == 0  # here, on threads: every point ends done
    assert {p["state"] for p in json.loads(manifest.read_text())["points"]} == {"done"}
    assert "3 points: 3 done" in capsys.readouterr().out
