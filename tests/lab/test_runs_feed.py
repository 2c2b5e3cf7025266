"""Kernel side of the sidebar's Runs section, driven message by message as the browser would: the rows come on
watch and on every start and end, Cancel stops a live run, Open goes through the artifact policy as a tab path
relative to the server's root (a file outside it is refused with the notebook call that shows it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities.thread_run import ThreadRun
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.lab.kernel_sidebar import SidebarSession
from tests import models


@pytest.fixture
def sent() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def session(sent: list[dict[str, Any]]) -> SidebarSession:
    return SidebarSession(sent.append)


def runs_of(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in sent if m["kind"] == "runs"][-1]["rows"] or [{"id": None, "live": False, "state": None}]


def said(sent: list[dict[str, Any]]) -> dict[str, Any]:
    """The last message that is not a rows update (those come from the feed's timer thread at any time)."""
    return [m for m in sent if m["kind"] != "runs"][-1]


def soon(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether `check()` holds within `timeout` (the feed sends from its timer thread)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_rows_follow_runs_and_cancel_stops_one(session: SidebarSession, sent: list[dict[str, Any]]) -> None:
    session.handle({"kind": "runs_watch", "root": "/"})
    before = len([m for m in sent if m["kind"] == "runs"])
    release = threading.Event()
    job = ThreadRun("Sanitize", lambda progress, token: release.wait(10))
    track().register(job.start())
    assert soon(lambda: runs_of(sent)[0]["id"] == job.id and runs_of(sent)[0]["live"])  # told at the start
    ticks = len(sent)
    assert soon(lambda: len(sent) > ticks, timeout=3.0)  # and every second while it is live (progress)
    session.handle({"kind": "run_cancel", "id": job.id})
    release.set()
    job.wait(10)
    assert soon(lambda: runs_of(sent)[0]["state"] == "cancelled")  # and at the end
    assert len([m for m in sent if m["kind"] == "runs"]) >= before + 3
    time.sleep(1.5)
    quiet = len(sent)
    time.sleep(1.5)
    assert len(sent) == quiet  # nothing live: nothing sent
    session.close()
    track().register(ThreadRun("after close", lambda p, t: None))
    time.sleep(0.2)
    assert len(sent) == quiet  # a closed sidebar hears nothing


def test_open_sends_the_report_path_under_the_server_root(
    session: SidebarSession, sent: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    model = tmp_path / "work" / "m.onnx"
    model.parent.mkdir()
    onnx.save(models.resnet_like(blocks=1), str(model))
    dld.profile(str(model), iterations=2, warmup=0, threads=1)
    run_id = next(row.id for row in dld.runs() if row.model == str(model))
    session.handle({"kind": "runs_watch", "root": str(tmp_path)})
    session.handle({"kind": "run_open", "id": run_id, "name": "report", "point": None})
    assert said(sent) == {"kind": "open_file", "artifact": "report", "file": "work/m.dld-report.json", "kernel_dir": ""}
    monkeypatch.chdir(tmp_path / "work")
    session.handle({"kind": "run_open", "id": run_id, "name": "report", "point": None})
    assert said(sent)["kernel_dir"] == "work"  # the kernel's folder under the root: a tab on it reads paths there
    session.handle({"kind": "runs_watch", "root": str(tmp_path / "elsewhere")})
    session.handle({"kind": "run_open", "id": run_id, "name": "report", "point": None})
    assert said(sent)["kind"] == "error" and "outside the folder JupyterLab shows" in said(sent)["message"]
    assert "dld.report(" in said(sent)["message"]
    session.handle({"kind": "run_open", "id": run_id, "name": "engine", "point": None})
    assert said(sent)["kind"] == "error" and "no 'engine' artifact" in said(sent)["message"]


def test_an_engine_export_row_opens_its_engine_graph(
    session: SidebarSession, sent: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TensorRT through the recorded stand-in (tests/activities/trt_standin.py): the export is an "engine export" row
    whose line parses back to its spec, and Open engine graph opens its layer information."""
    import shlex

    from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec
    from dld_jupyter.activities.scheduler import run_activity
    from dld_jupyter.cli import export_engine
    from dld_jupyter.cli.main import build_parser
    from tests.activities.test_trt_pipeline import STANDIN, _sample_model

    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    model = _sample_model(tmp_path)
    spec = TrtBuildSpec(model=str(model), engine=str(tmp_path / "out.engine"), metadata=str(tmp_path / "out.trt.json"))
    track()
    assert run_activity(spec, remember=False).ok
    row = next(r for r in dld.runs() if r.kind == "engine export" and r.model == str(model))
    assert (row.runtime, row.device, row.state) == ("TensorRT", "cuda:0", "succeeded")
    assert row.artifacts == {"engine": str(tmp_path / "out.engine"), "layer_info": str(tmp_path / "out.trt.json")}
    words = shlex.split(row.command_line)
    assert export_engine.spec_from_args(build_parser().parse_args(words[1:])).resolved() == spec.resolved()
    session.handle({"kind": "runs_watch", "root": str(tmp_path)})
    session.handle({"kind": "run_open", "id": row.id, "name": "layer_info", "point": None})
    assert said(sent) == {"kind": "open_file", "artifact": "layer_info", "file": "out.trt.json", "kernel_dir": ""}
