"""The live runs registry: runs started by dld.profile and by start_activity (what the panels call) are listed,
found by id, cancelled by id; ended runs beyond the limit are forgotten. Real worker processes."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, Run, start_activity
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec
from dld_jupyter.frontdoor.runs import RunRegistry, track
from tests import models


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))  # remembered settings stay in the test's folder
    path = tmp_path / "resnet.onnx"
    onnx.save(models.resnet_like(blocks=1), str(path))
    return path


def test_runs_started_anywhere_are_listed_found_and_cancelled(model: Path) -> None:
    registry = track()
    assert track() is registry  # subscribing twice registers each run once
    report = dld.profile(str(model), iterations=2, warmup=0, threads=1)
    profiled = [run for run in registry.list() if isinstance(run.spec, OrtProfileSpec) and run.spec.model == str(model)]
    assert len(profiled) == 1 and profiled[0].status is ActivityStatus.SUCCEEDED
    assert profiled[0].result is not None and report.summary.passes == 2
    assert registry.find(profiled[0].id) is profiled[0] and profiled[0] not in registry.list(live_only=True)

    session = start_activity(OrtSessionSpec(model=str(model), threads=1), remember=False)
    try:
        assert registry.find(session.id) is session and session in registry.list(live_only=True)
        assert session.request("ping")["ok"]
        assert registry.cancel(session.id) is session
        result = session.wait(timeout=30)
    finally:
        session.cancel()
    assert result is not None and result.status is ActivityStatus.CANCELLED
    assert session not in registry.list(live_only=True)
    with pytest.raises(LookupError, match="run 'nope' is not a live or recent run; known runs: \\["):
        registry.find("nope")


def test_ended_runs_beyond_the_limit_are_forgotten(model: Path) -> None:
    registry = RunRegistry(keep_ended=1)
    spec = OrtProfileSpec(model=str(model))
    ended = [registry.register(Run(spec)) for _ in range(3)]
    for run in ended:
        run.cancel()  # a queued run ends at once
    live = registry.register(Run(spec))
    assert registry.list() == [ended[-1], live]  # the newest ended run and the live one
