"""Sweeps on this machine (threads, real worker processes, real ONNX Runtime): the grid, the manifest, points that
cannot run, resume after the sweeping process died, and medians that match the same points profiled one by one."""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import onnxruntime
import pytest

from dld_jupyter.activities.api import profile
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.sweep import load_manifest, resume_sweep, start_sweep
from dld_jupyter.report_format.io import load_report
from tests.activities import _models as models
from tests.activities.conftest import save

FAST = {"iterations": 5, "warmup": 1}


@pytest.fixture
def two_models(tmp_path: Path) -> list[str]:
    return [str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "small")),
            str(save(models.resnet_like(blocks=1, channels=8, size=8), tmp_path, "wider"))]


def check_consistent(folder: Path, expected: int) -> None:
    manifest = load_manifest(folder)
    assert len(manifest.points) == expected
    assert len({p.point.id for p in manifest.points}) == expected
    for entry in manifest.points:
        assert entry.state == "done", (entry.point.id, entry.state, entry.reason)
        assert entry.report is not None and (folder / entry.report).is_file()
        report = load_report(folder / entry.report)
        assert report.summary.settings["batch_size"] == entry.point.batch
        assert entry.median_ms == pytest.approx(report.summary.median_ms)
        assert entry.throughput == pytest.approx(entry.point.batch * 1000 / report.summary.median_ms)
        assert entry.peak_memory_mb and entry.peak_memory_mb > 1
    reports = sorted(p.name for p in folder.glob("*.dld-report.json"))
    assert reports == sorted(p.report for p in manifest.points if p.report)


def test_two_models_by_two_batches_make_four_reports(two_models: list[str], tmp_path: Path) -> None:
    sweep = start_sweep(two_models, batch=[1, 2], out=str(tmp_path / "out"), **FAST)
    assert sweep.wait(240)
    check_consistent(tmp_path / "out", 4)
    # the same call again measures nothing: every point is finished
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "out").glob("*.dld-report.json")}
    again = start_sweep(two_models, batch=[1, 2], out=str(tmp_path / "out"), **FAST)
    assert again.wait(60)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "out").glob("*.dld-report.json")} == stamps
    assert all(p.runs == 1 for p in again.points())


def test_points_that_cannot_run_say_why(tmp_path: Path) -> None:
    fixed = str(save(models.resnet_like(blocks=1, channels=4, size=8, batch=1), tmp_path, "fixed"))
    sweep = start_sweep([fixed], batch=[1, 4], provider=["cpu", "cuda"], precision=["fp32", "int8"],
                        out=str(tmp_path / "out"), **FAST)
    assert sweep.wait(240)
    states = {(p.point.batch, p.point.provider, p.point.precision): p for p in sweep.points()}
    assert states[(1, "cpu", "fp32")].state == "done"
    for provider in ("cpu", "cuda"):
        entry = states[(4, provider, "fp32")]
        assert entry.state == "not applicable" and "fixed batch" in (entry.reason or ""), entry.reason
        assert entry.report is None
        assert "int8" in (states[(1, provider, "int8")].reason or "")
    cuda = states[(1, "cuda", "fp32")]
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        assert cuda.state == "not applicable" and "CUDAExecutionProvider" in (cuda.reason or "")
    assert not list((tmp_path / "out").glob("*b4*.dld-report.json"))  # never silently run at another batch


def test_another_grid_in_the_same_folder_is_refused(two_models: list[str], tmp_path: Path) -> None:
    assert start_sweep(two_models[:1], out=str(tmp_path / "out"), **FAST).wait(120)
    with pytest.raises(SpecError, match="holds another sweep"):
        start_sweep(two_models[:1], batch=[1, 2], out=str(tmp_path / "out"), **FAST)


SWEEP_SCRIPT = """
import sys
from dld_jupyter.activities.sweep import start_sweep
start_sweep(sys.argv[1:3], batch=[1, 2], out=sys.argv[3], iterations=3000, warmup=1).wait()
"""


def test_resume_after_a_restart_runs_only_missing_points(two_models: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen([sys.executable, "-c", SWEEP_SCRIPT, *two_models, str(out)], env=env)
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline:  # the "kernel" dies once the first point is finished
            manifest = load_manifest(out) if out.joinpath("sweep.json").is_file() else None
            if manifest is not None and any(manifest.finished(p) for p in manifest.points):
                break
            time.sleep(0.2)
    finally:
        process.kill()
        process.wait()
    before = load_manifest(out)
    finished = {p.point.id: (out / p.report).stat().st_mtime_ns for p in before.points if before.finished(p)}
    assert 1 <= len(finished) < 4
    assert json.loads((out / "sweep.json").read_text())["format"] == "dld-sweep"  # never half written
    sweep = resume_sweep(str(out))
    assert sweep.wait(300)
    check_consistent(out, 4)
    for entry in sweep.points():
        if entry.point.id in finished:
            assert (out / str(entry.report)).stat().st_mtime_ns == finished[entry.point.id]
            assert entry.runs == 1
        else:
            assert entry.runs >= 1


def test_medians_agree_with_the_points_run_one_by_one(two_models: list[str], tmp_path: Path) -> None:
    options = {"iterations": 40, "warmup": 5}
    sweep = start_sweep(two_models, batch=[2], out=str(tmp_path / "out"), **options)
    assert sweep.wait(240)
    for entry in sweep.points():
        alone = profile(entry.point.model, batch_size=2, output=str(tmp_path / f"{entry.point.id}.json"), **options)
        swept = load_report(tmp_path / "out" / str(entry.report)).summary
        # they agree when the medians differ by less than the two runs' spreads (min to p90) together, plus 20 µs:
        # these passes take ~12 µs, the scale of one scheduler wake-up on a 2-core runner (a CI run saw 12 vs 23 µs
        # with spreads of 1 and 4 µs); a sweep that moved a real model's median (the 2.5x) still fails
        assert abs(swept.median_ms - alone.summary.median_ms) <= (
            (swept.p90_ms - swept.min_ms) + (alone.summary.p90_ms - alone.summary.min_ms) + 0.02
        ), (swept, alone.summary)


def test_an_unknown_target_is_refused_before_anything_runs(two_models: list[str], tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no-such-box"):
        start_sweep(two_models[:1], targets=["localhost", "no-such-box"], out=str(tmp_path / "out"), **FAST)
    assert not (tmp_path / "out").exists()


class RecordingExecutor(cf.ThreadPoolExecutor):
    """One worker, first in first out, remembering the order in which the sweep handed out its points."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.order: list[str] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        self.order.append(args[0]["point"]["id"])
        return super().submit(fn, *args, **kwargs)


def test_points_are_handed_out_largest_first(two_models: list[str], tmp_path: Path) -> None:
    # In grid order the largest batches came last: on two GPUs one sat idle while the other ran them.
    executor = RecordingExecutor()
    sweep = start_sweep(two_models, batch=[1, 4], out=str(tmp_path / "out"), executor=executor, **FAST)
    assert sweep.wait(240)
    executor.shutdown()
    check_consistent(tmp_path / "out", 4)
    assert executor.order == ["003-wider-b4-cpu-fp32", "001-small-b4-cpu-fp32", "002-wider-b1-cpu-fp32",
                              "000-small-b1-cpu-fp32"]
    assert [p.point.id for p in load_manifest(tmp_path / "out").points] == sorted(executor.order)  # grid order
