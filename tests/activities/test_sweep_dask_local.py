"""A sweep on a Dask cluster started for it (issue 42: the Sweep form's "Start a local cluster", `executor=
"dask-local"`): a designer tab has no console to make a `distributed.Client`. Real Dask, real worker processes:
the points run on the cluster's workers, the cluster is stopped when the sweep ends, and a kernel that exits (or is
killed) takes the cluster and the profile processes under it along. An address where no scheduler listens is said
at once, with what to do."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from distributed import Client

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.sweep import start_sweep
from dld_jupyter.activities.sweep.local_cluster import open_clusters
from tests.activities import _models as models
from tests.activities.conftest import save


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def descendants(pid: int) -> set[int]:
    """Every process under `pid`, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def profile_workers(pids: set[int]) -> list[int]:
    found = []
    for pid in pids:
        try:
            if b"dld_jupyter.activities.worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def wait_gone(pids: set[int], timeout: float) -> set[int]:
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return {pid for pid in pids if alive(pid)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_local_cluster_runs_the_points_and_is_stopped_when_the_sweep_ends(tmp_path: Path) -> None:
    model = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    sweep = start_sweep([model], batch=[1, 2], out=str(tmp_path / "out"), executor="dask-local", iterations=1000,
                        warmup=1)
    try:
        [cluster] = open_clusters()
        with Client(cluster.scheduler_address) as looking:
            workers = set(looking.run(os.getpid).values())
        assert workers and not (workers & {os.getpid()})  # worker processes of their own
        assert sweep.wait(300)
    finally:
        sweep.cancel()
        sweep.wait(60)
    assert {p.state for p in sweep.points()} == {"done"}, [(p.point.id, p.state, p.reason) for p in sweep.points()]
    assert open_clusters() == [] and wait_gone(workers, 30) == set()
    said = [line.message for line in sweep.logs if "Dask scheduler" in line.message]
    assert said and cluster.scheduler_address in said[0] and "local cluster" in said[0] and "stopped" in said[0]
    argv = sweep.command_line().argv
    assert argv[argv.index("--executor") + 1] == "dask-local"  # the runs list's command line does it again


KERNEL = textwrap.dedent("""
    import json, os, sys, time
    from dld_jupyter.activities.sweep import start_sweep
    sweep = start_sweep([sys.argv[2]], batch=[1], out=sys.argv[3], executor="dask-local", iterations=10**9, warmup=0)
    while not any(p.state == "running" for p in sweep.points()):
        time.sleep(0.1)
    print(json.dumps(os.getpid()), flush=True)
    sys.stdin.readline()  # the test has seen the processes under this one
    if sys.argv[1] == "exit":
        sys.exit(0)  # a kernel shut down: the interpreter exits with the sweep still running
    time.sleep(600)
""")


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_kernel_that_exits_stops_its_local_cluster_and_the_runs_on_it(tmp_path: Path, how: str) -> None:
    model = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    kernel = subprocess.Popen([sys.executable, "-c", KERNEL, how, model, str(tmp_path / "out")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert kernel.stdout is not None and kernel.stdin is not None
        line = kernel.stdout.readline()
        assert line, "the kernel stand-in did not start its sweep"
        deadline = time.monotonic() + 60  # the point holds its device: its profile worker is starting
        while not (profiling := profile_workers(under := descendants(kernel.pid))) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert profiling, "no profile worker under the cluster's worker"  # the point is measuring there
        if how == "kill":
            kernel.kill()
        else:
            kernel.stdin.write("\n")
            kernel.stdin.flush()
        kernel.wait(60)
        assert wait_gone(under, 60) == set(), "processes left behind by the kernel's local cluster"
    finally:
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait(30)


def test_an_address_where_no_scheduler_listens_is_said_at_once(tmp_path: Path) -> None:
    model = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    address = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(SpecError, match=rf"no Dask scheduler answers at tcp://{address} .*start a local cluster"):
        start_sweep([model], out=str(tmp_path / "out"), executor=f"dask://{address}")
    assert time.monotonic() - started < 10  # Dask alone retried for 30 s
    with pytest.raises(SpecError, match="no host:port address"):
        start_sweep([model], out=str(tmp_path / "out"), executor="dask://tcp://nohost")
    with pytest.raises(SpecError, match=r"Sweep form's Scheduler field.*dask-local"):
        start_sweep([model], out=str(tmp_path / "out"), executor="dask")  # no client in this process


def test_dld_sweep_executor_dask_local(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.cli.main import main

    model = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    out = tmp_path / "out"
    assert main(["sweep", model, "--batch", "1,2", "--out", str(out), "--executor", "dask-local", "--iterations",
                 "3", "--warmup", "0"]) == 0
    assert open_clusters() == []  # stopped before the command returned
    states = {point["state"] for point in json.loads((out / "sweep.json").read_text())["points"]}
    assert states == {"done"}, capsys.readouterr()
