"""The runs list's rows (`dld.runs()`, the sidebar's Runs section) from real runs: a profile in a worker, a divergence
on a thread, a Tools job; the median is the report's, the command line is the one that reproduces the run, hostile
names stay text in the notebook table, and the registry tells its watchers when runs start and end."""

from __future__ import annotations

import shlex
import threading
from pathlib import Path

import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities.thread_run import ThreadRun
from dld_jupyter.cli.main import build_parser
from dld_jupyter.cli.profile import spec_from_args
from dld_jupyter.frontdoor.run_rows import rows
from dld_jupyter.frontdoor.runs import RunRegistry, track
from dld_jupyter.frontdoor.runs_table import RunsTable
from tests import models

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / f"{HOSTILE}.onnx"
    onnx.save(models.resnet_like(blocks=1), str(path))
    return path


def test_a_profile_row_has_the_report_median_and_its_command(model: Path) -> None:
    report = dld.profile(str(model), iterations=3, warmup=0, threads=1)
    row = next(r for r in dld.runs() if r.model == str(model))
    assert (row.kind, row.runtime, row.target, row.device, row.state) == (
        "profile", "ONNX Runtime", "localhost", "cpu", "succeeded")
    assert row.median_ms == pytest.approx(report.summary.median_ms) and row.fraction == 1.0 and not row.live
    assert row.started is not None and row.duration_s is not None and row.duration_s > 0
    assert Path(row.artifacts["report"]).is_file()
    words = shlex.split(row.command_line)
    again = spec_from_args(build_parser().parse_args(words[1:]))
    spec = next(run for run in track().list() if run.id == row.id).spec
    assert spec is not None and again.resolved() == spec
    html = dld.runs()._repr_html_()
    assert HOSTILE not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_divergence_row_names_dld_diverge(model: Path) -> None:
    dld.diverge(str(model), str(model))
    row = next(r for r in dld.runs() if r.kind == "divergence")
    assert (row.state, row.runtime, row.target, row.device, row.model) == (
        "succeeded", "ONNX Runtime", "localhost", "cpu", str(model))
    assert shlex.split(row.command_line)[:4] == ["dld", "diverge", str(model), str(model)]
    assert Path(row.artifacts["divergence"]).is_file()  # the per-node table, listed with its path


def test_a_tools_job_is_listed_by_name_and_says_no_command_runs_it() -> None:
    registry = RunRegistry()
    heard: list[int] = []
    registry.watch(lambda: heard.append(len(registry.list())))
    release = threading.Event()
    job = ThreadRun("Convert to FP16", lambda progress, token: release.wait(10))
    registry.register(job.start())
    [live] = RunsTable(rows(registry))
    assert (live.kind, live.state, live.live, live.command_line) == ("Convert to FP16", "running", True, "")
    assert "no dld command" in live.unsaid[0]
    release.set()
    job.wait(10)
    assert heard == [1, 1] and RunsTable(rows(registry)).find(job.id).state == "succeeded"
    assert "$ " not in repr(RunsTable(rows(registry)))


def test_rows_are_newest_first() -> None:
    registry = RunRegistry()
    first, second = ThreadRun("a", lambda p, t: None), ThreadRun("b", lambda p, t: None)
    registry.register(first)
    registry.register(second)
    assert [row.kind for row in rows(registry)] == ["b", "a"]
    with pytest.raises(LookupError, match="is not listed"):
        RunsTable(rows(registry)).find("nope")


def test_a_sweep_is_one_row_with_its_points_and_its_line_parses_back(model: Path, tmp_path: Path) -> None:
    from dld_jupyter.cli.sweep import sweep_arguments

    view = dld.sweep([str(model)], batch=[1, 2], iterations=1, warmup=0, out=str(tmp_path / "sw"))
    assert view.wait(120)
    listed = dld.runs()
    row = next(r for r in listed if r.kind == "sweep" and r.artifacts["folder"] == str(tmp_path / "sw"))
    assert row.state == "succeeded" and [p.state for p in row.points] == ["done", "done"]
    assert all(p.median_ms and Path(p.artifacts["report"]).is_file() for p in row.points)
    # its point runs are inside it, not rows of their own (this test's model: other tests' sweeps in this process,
    # started without the front door, list their points once any test turned the registry on)
    assert not any(r.kind == "profile" and r.model == str(model) for r in listed)
    given = sweep_arguments(build_parser().parse_args(shlex.split(row.command_line)[1:]))
    assert given["batch"] == [1, 2] and given["out"] == str(tmp_path / "sw") and given["rerun"] is True


def test_an_analysis_is_a_live_row_until_stopped(model: Path) -> None:
    analysis = dld.analyse(str(model))
    try:
        row = next(r for r in dld.runs() if r.kind == "analysis" and r.model == str(model))
        assert row.live and row.state == "running"
        assert shlex.split(row.command_line)[:3] == ["dld", "analyze", str(model)]
        assert any("breakpoints" in note for note in row.unsaid)
    finally:
        analysis.stop()
    assert not dld.runs().find(row.id).live
