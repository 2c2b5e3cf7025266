"""Sweeps on a real Dask cluster (distributed.LocalCluster, two worker processes, not mocked): reports come back as
bytes and land in the sweep folder; a worker killed while it runs a point leaves that point retried or failed."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from dld_jupyter.activities.sweep import load_manifest, start_sweep
from tests.activities import _models as models
from tests.activities.conftest import save
from tests.activities.test_sweep import check_consistent


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with Client(cluster) as connected:
        yield connected
    cluster.close()


def test_two_by_two_sweep_on_dask(client: Client, tmp_path: Path) -> None:
    names = [str(save(models.resnet_like(blocks=1, channels=c, size=8), tmp_path, f"m{c}")) for c in (4, 8)]
    sweep = start_sweep(names, batch=[1, 2], out=str(tmp_path / "out"), executor="dask", iterations=5, warmup=1)
    assert sweep.wait(300)
    check_consistent(tmp_path / "out", 4)
    hosts = {p.host for p in sweep.points()}
    assert hosts and None not in hosts


def test_a_worker_killed_mid_sweep_leaves_its_point_retried_or_failed(client: Client, tmp_path: Path) -> None:
    names = [str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))]
    sweep = start_sweep(names, batch=[1, 2], out=str(tmp_path / "out"), executor=client, iterations=3000, warmup=1)
    pids = client.run(os.getpid)
    deadline = time.monotonic() + 120
    victim = None
    while victim is None and time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]
        victim = busy[0] if busy else None
        time.sleep(0.2)
    assert victim is not None
    time.sleep(1.0)  # the point's profile is under way in that worker
    os.kill(pids[victim], signal.SIGKILL)
    assert sweep.wait(300)
    manifest = load_manifest(tmp_path / "out")
    for entry in manifest.points:
        assert entry.state in ("done", "failed"), (entry.point.id, entry.state)
        if entry.state == "done":
            assert manifest.finished(entry)
        else:
            assert entry.reason
    assert any(entry.state == "done" for entry in manifest.points)


def test_cancel_reaches_points_running_on_dask_workers(client: Client, tmp_path: Path) -> None:
    names = [str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))]
    sweep = start_sweep(names, batch=[1, 2, 3], out=str(tmp_path / "out"), executor="dask", iterations=10**6,
                        warmup=0)
    deadline = time.monotonic() + 120
    while not any(keys for keys in client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2.0)  # a point's worker process is measuring
    started = time.monotonic()
    sweep.cancel()
    assert sweep.wait(60), "cancel did not stop the points running on the cluster"
    assert time.monotonic() - started < 60
    states = {entry.state for entry in load_manifest(tmp_path / "out").points}
    assert states == {"cancelled"}, states
    deadline = time.monotonic() + 30  # the running point's worker process is stopped, not left measuring
    while any(client.run(_children).values()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(client.run(_children).values())


def _children() -> list[int]:
    import psutil

    return [child.pid for child in psutil.Process().children(recursive=True)]
