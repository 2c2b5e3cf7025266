"""What a run holds of its host (issue 35), proved with real worker runs' start and end times: a CPU run never runs
beside a GPU run of its host, in submission order; GPU runs of two GPUs share the host, an interactive session on the
CPU holds nothing; and the
lock files hold across two processes. GPU runs are TensorRT builds on the stand-in runtime (no GPU here: the
scheduler knows a GPU by its device key, "cuda:0"), CPU runs real ONNX Runtime profiles. Each test has a lock folder
of its own, so other processes of this machine do not take part.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dld_jupyter.activities import OrtProfileSpec, Run, TrtBuildSpec, TrtSettings
from dld_jupyter.activities.host_locks import HostLocks
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec
from dld_jupyter.activities.scheduler import Scheduler
from tests.activities.test_trt_pipeline import STANDIN, _sample_model

ROOT = Path(__file__).resolve().parents[2]


def build(model: Path, device: int, folder: Path) -> Run:
    settings = TrtSettings(fp16=True, typing="obey", device=device)
    return Run(TrtBuildSpec(model=str(model), engine=str(folder / f"{device}-{time.monotonic_ns()}.engine"),
                            settings=settings), remember=False)


def cpu_profile(model: Path, folder: Path, name: str) -> Run:
    spec = OrtProfileSpec(model=str(model), iterations=3, warmup=0, threads=1, output=str(folder / f"{name}.json"))
    return Run(spec, remember=False)


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    return _sample_model(tmp_path)


def test_a_cpu_run_never_runs_beside_a_gpu_run_of_its_host(standin: Path, resnet_path: Path, tmp_path: Path) -> None:
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    first_gpu = scheduler.submit(build(standin, 0, tmp_path))
    cpu = scheduler.submit(cpu_profile(resnet_path, tmp_path, "cpu"))
    other_gpu = scheduler.submit(build(standin, 1, tmp_path))  # another GPU, but submitted after the CPU run
    results = [run.wait(240) for run in (first_gpu, cpu, other_gpu)]
    assert all(result is not None and result.ok for result in results), results
    assert first_gpu.ended_at and cpu.started_at and cpu.ended_at and other_gpu.started_at
    assert cpu.started_at > first_gpu.ended_at  # its worker started only once the GPU run had ended
    assert other_gpu.started_at > cpu.ended_at  # and the next GPU run waited for it, in submission order
    assert any(line.message.startswith("queued: cuda:0 of localhost is busy") for line in cpu.logs), cpu.logs
    assert any("queued:" in line.message for line in other_gpu.logs), other_gpu.logs


def test_gpu_runs_share_the_host_and_a_session_holds_no_cores(
    standin: Path, resnet_path: Path, tmp_path: Path
) -> None:
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    session = scheduler.submit(Run(OrtSessionSpec(model=str(resnet_path), threads=1), remember=False))
    try:
        assert session.request("ping")["ok"]  # an interactive run on the CPU, open
        gpus = [scheduler.submit(build(standin, device, tmp_path)) for device in (0, 1)]
        results = [run.wait(240) for run in gpus]
        assert all(result is not None and result.ok for result in results), results
        assert not session.done  # both GPU runs ran while the session was open
        a, b = gpus
        assert a.started_at and b.started_at and a.ended_at and b.ended_at
        assert b.started_at < a.ended_at and a.started_at < b.ended_at  # two GPUs of one host at the same time
    finally:
        session.cancel()


HOLDER = """
import json, sys, time
from pathlib import Path
from dld_jupyter.activities import Run, TrtBuildSpec, TrtSettings
from dld_jupyter.activities.host_locks import HostLocks
from dld_jupyter.activities.scheduler import Scheduler
folder, model, engine, said = sys.argv[1:5]
def hold(run):
    Path(said).write_text("holding")
    time.sleep(2.0)
spec = TrtBuildSpec(model=model, engine=engine, settings=TrtSettings(fp16=True, typing="obey", device=0))
run = Scheduler(locks=HostLocks(folder)).submit(Run(spec, remember=False), before_start=hold)
result = run.wait(120)
print(json.dumps({"ok": result.ok, "started": run.started_at, "ended": run.ended_at}))
"""


def test_the_locks_hold_across_two_processes(standin: Path, resnet_path: Path, tmp_path: Path) -> None:
    locks, said = tmp_path / "locks", tmp_path / "holding"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(locks), str(standin), str(tmp_path / "other.engine"), str(said)],
        env=env, stdout=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not said.exists() and holder.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert said.exists(), "the other process never took its GPU"
        # two schedulers: each sees only the lock files, like a third process would
        gpu = Scheduler(locks=HostLocks(locks)).submit(build(standin, 0, tmp_path))  # the other process's GPU
        cpu = Scheduler(locks=HostLocks(locks)).submit(cpu_profile(resnet_path, tmp_path, "cpu"))  # its host
        results = [run.wait(240) for run in (gpu, cpu)]
        out, _ = holder.communicate(timeout=120)
    finally:
        holder.kill()
    other = json.loads(out.strip().splitlines()[-1])
    assert other["ok"] and all(result is not None and result.ok for result in results), (other, results)
    for run, lock in ((gpu, "gpu-localhost-cuda_0.lock"), (cpu, "host-localhost.lock")):
        assert run.started_at is not None and run.started_at > other["ended"]  # CLOCK_MONOTONIC: one clock per host
        assert any("another process holds" in line.message and lock in line.message for line in run.logs), run.logs
    assert gpu.started_at and cpu.started_at and gpu.ended_at and cpu.ended_at
    assert cpu.started_at > gpu.ended_at or gpu.started_at > cpu.ended_at  # nor beside each other, through the files
