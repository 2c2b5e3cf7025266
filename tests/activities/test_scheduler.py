"""The scheduler runs several specs at once, at most one per (target, device): real worker processes.

Same device: a session run holds the CPU until it is closed, so the next run stays queued until then and starts
after the first has ended. Two devices: TensorRT builds on GPUs 0 and 1 (the stand-in runtime replays recorded
TensorRT outputs, see trt_standin.py) run at the same time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, Run, TrtBuildSpec, TrtSettings
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec
from dld_jupyter.activities.scheduler import Scheduler
from tests.activities.test_trt_pipeline import STANDIN, _sample_model


def test_two_runs_on_one_device_never_overlap(resnet_path: Path) -> None:
    scheduler = Scheduler()
    session = scheduler.submit(Run(OrtSessionSpec(model=str(resnet_path), threads=1), remember=False))
    profile = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=3, warmup=0, threads=1))
    assert session.device == profile.device == "cpu"
    try:
        assert session.request("ping")["ok"]  # the session's worker is up and holds the CPU
        assert profile.status is ActivityStatus.QUEUED and profile.pid is None
        assert scheduler.running() == [session]
        assert session.request("close")["ok"]
        result = profile.wait(timeout=60)
    finally:
        session.cancel()
        profile.cancel()
    assert result is not None and result.ok, result
    first = session.wait(timeout=30)
    assert first is not None and first.ok
    assert session.ended_at is not None and profile.started_at is not None
    assert profile.started_at >= session.ended_at  # it started only once the session had ended
    assert scheduler.runs() == [session, profile] and scheduler.running() == []


def test_runs_on_two_devices_overlap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    model = _sample_model(tmp_path)
    scheduler = Scheduler()
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


def test_a_queued_run_cancelled_never_starts(resnet_path: Path) -> None:
    scheduler = Scheduler()
    session = scheduler.submit(Run(OrtSessionSpec(model=str(resnet_path), threads=1), remember=False))
    queued = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1))
    after = scheduler.submit(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1))
    try:
        queued.cancel()
        cancelled = queued.wait(timeout=5)
        assert cancelled is not None and cancelled.status is ActivityStatus.CANCELLED and queued.pid is None
        assert session.request("close")["ok"]
        result = after.wait(timeout=60)
    finally:
        session.cancel()
        after.cancel()
    assert result is not None and result.ok and queued.started_at is None
