"""The scheduler runs several specs at once, at most one per (target, device): real worker processes.

Same device: a run holds the CPU until it ends (held open here by a gate in its before-start hook, which runs once it
holds its device), so the next run stays queued until then and starts after the first has ended. Two devices:
TensorRT builds on GPUs 0 and 1 (the stand-in runtime replays recorded TensorRT outputs, see trt_standin.py) run at
the same time. Sessions: on the CPU they hold nothing; a run within another uses the GPU that one holds.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, Run, TrtBuildSpec, TrtSettings
from dld_jupyter.activities.host_locks import HostLocks
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec
from dld_jupyter.activities.scheduler import Scheduler
from tests.activities.test_trt_pipeline import STANDIN, _sample_model


def gated(scheduler: Scheduler, resnet_path: Path, gate: threading.Event) -> Run:
    """A CPU profile that holds its device until `gate` is set (its before-start hook waits for it)."""
    spec = OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1)
    return scheduler.submit(Run(spec, remember=False), before_start=lambda _run: bool(gate.wait(60)))


def test_two_runs_on_one_device_never_overlap(resnet_path: Path, tmp_path: Path) -> None:
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    gate = threading.Event()
    first = gated(scheduler, resnet_path, gate)
    profile = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=3, warmup=0, threads=1))
    assert first.device == profile.device == "cpu"
    try:
        assert first.status is ActivityStatus.RUNNING
        assert profile.status is ActivityStatus.QUEUED and profile.pid is None
        assert scheduler.running() == [first]
        gate.set()
        result = profile.wait(timeout=60)
    finally:
        gate.set()
        profile.cancel()
    assert result is not None and result.ok, result
    earlier = first.wait(timeout=30)
    assert earlier is not None and earlier.ok
    assert first.ended_at is not None and profile.started_at is not None
    assert profile.started_at >= first.ended_at  # it started only once the first had ended
    assert scheduler.runs() == [first, profile] and scheduler.running() == []


def test_runs_on_two_devices_overlap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    model = _sample_model(tmp_path)
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    runs = [
        scheduler.submit(
            Run(
                TrtBuildSpec(
                    model=str(model),
                    engine=str(tmp_path / f"gpu{device}.engine"),
                    settings=TrtSettings(fp16=True, typing="obey", device=device),
                ),
                remember=False,
            )
        )
        for device in (0, 1)
    ]
    assert [run.device for run in runs] == ["cuda:0", "cuda:1"]
    assert sorted(scheduler.running(), key=lambda run: run.device) == runs  # both started at once
    results = [run.wait(timeout=120) for run in runs]
    assert all(result is not None and result.ok for result in results), results
    a, b = runs
    assert a.started_at is not None and b.started_at is not None and a.ended_at is not None and b.ended_at is not None
    assert b.started_at < a.ended_at and a.started_at < b.ended_at  # their worker processes ran at the same time
    assert [r.artifacts["engine"] for r in results if r is not None] == [
        str(tmp_path / "gpu0.engine"),
        str(tmp_path / "gpu1.engine"),
    ]


def test_a_queued_run_cancelled_never_starts(resnet_path: Path, tmp_path: Path) -> None:
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    gate = threading.Event()
    first = gated(scheduler, resnet_path, gate)
    queued = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1))
    after = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1))
    try:
        queued.cancel()
        cancelled = queued.wait(timeout=5)
        assert cancelled is not None and cancelled.status is ActivityStatus.CANCELLED and queued.pid is None
        gate.set()
        result = after.wait(timeout=60)
    finally:
        gate.set()
        after.cancel()
    assert result is not None and result.ok and queued.started_at is None
    assert first.wait(30) is not None


def test_a_cpu_session_holds_nothing_and_a_run_within_another_uses_its_gpu(
    resnet_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An open analysis (a session) may stay for hours: on the CPU it holds nothing; on a GPU it holds the GPU, and
    its own layer-timings profile, submitted within it, runs there anyway (it would otherwise wait forever)."""
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    session = scheduler.submit(Run(OrtSessionSpec(model=str(resnet_path), threads=1), remember=False))
    try:
        assert session.request("ping")["ok"]
        profile = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1))
        result = profile.wait(60)
        assert result is not None and result.ok and not session.done
    finally:
        session.cancel()
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    model = _sample_model(tmp_path)
    gate = threading.Event()
    holder = scheduler.submit(Run(OrtSessionSpec(model=str(resnet_path), provider="cuda"), remember=False),
                              before_start=lambda _run: bool(gate.wait(60)))  # holds cuda:0 until the gate opens
    build = TrtBuildSpec(model=str(model), engine=str(tmp_path / "e.engine"),
                         settings=TrtSettings(fp16=True, typing="obey", device=0))
    outside = scheduler.submit(Run(build, remember=False))
    inside = scheduler.submit(Run(dataclasses.replace(build, engine=str(tmp_path / "i.engine")), remember=False),
                              within=holder)
    try:
        done = inside.wait(120)
        assert done is not None and done.ok, done
        assert outside.status is ActivityStatus.QUEUED  # the GPU is the holder's, and only its own runs use it
    finally:
        gate.set()
        holder.cancel()
    late = outside.wait(120)
    assert late is not None and late.ok, late


def test_a_run_anywhere_takes_the_first_free_device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep point that may go on either GPU: three such builds on two GPUs, the third on whichever frees first."""
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    model = _sample_model(tmp_path)
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))

    def on(device: int, name: str) -> TrtBuildSpec:
        return TrtBuildSpec(model=str(model), engine=str(tmp_path / f"{name}.engine"),
                            settings=TrtSettings(fp16=True, typing="obey", device=device))

    runs = [scheduler.submit(Run(on(0, name), remember=False), anywhere=[on(0, name), on(1, name)])
            for name in ("a", "b", "c")]
    assert [run.status for run in runs] == [ActivityStatus.RUNNING, ActivityStatus.RUNNING, ActivityStatus.QUEUED]
    assert [run.device for run in runs[:2]] == ["cuda:0", "cuda:1"]  # the second went where the first was not
    results = [run.wait(120) for run in runs]
    assert all(result is not None and result.ok for result in results), results
    first_free = min(runs[:2], key=lambda run: run.ended_at or 0.0)
    assert runs[2].device == first_free.device and (runs[2].started_at or 0) > (first_free.ended_at or 0)
    assert [Path(r.artifacts["engine"]).name for r in results if r] == ["a.engine", "b.engine", "c.engine"]
