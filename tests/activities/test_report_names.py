"""A run never silently replaces an existing report (issue 42): a report without an output path takes the first
free name of `model.dld-report.json`, `model-2…`, `model-3…`, whichever front door built its spec, counting the
reports that queued or running runs will write; a path the user gave is written as given (the output guard's
convention: only an input is protected). The remote half runs on the loopback sshd in
tests/remote/test_report_names.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dld_jupyter.activities import profile, report_names
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.profile import profile_spec
from dld_jupyter.activities.report_names import free_report_path, numbered
from dld_jupyter.activities.scheduler import start_activity
from dld_jupyter.cli.main import main
from dld_jupyter.document import Document
from dld_jupyter.report_format.io import load_report
from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook

FAST = {"iterations": 2, "warmup": 0, "threads": 1}


def test_numbering(tmp_path: Path) -> None:
    first = str(tmp_path / "model.dld-report.json")
    assert numbered(first, 1) == first
    assert numbered(first, 2) == str(tmp_path / "model-2.dld-report.json")
    assert numbered(str(tmp_path / "a.b.dld-report.json"), 3) == str(tmp_path / "a.b-3.dld-report.json")
    assert numbered(str(tmp_path / "r.json"), 2) == str(tmp_path / "r-2.json")
    assert free_report_path(first) == first
    Path(first).write_text("{}")
    assert free_report_path(first) == numbered(first, 2)
    (tmp_path / "model-2.dld-report.json").mkdir()  # a folder there is taken too
    os.symlink(tmp_path / "nowhere", tmp_path / "model-3.dld-report.json")  # and a dangling link
    assert free_report_path(first) == numbered(first, 4)
    assert free_report_path(first, [numbered(first, 4), numbered(first, 5)]) == numbered(first, 6)


def test_a_folder_full_of_numbered_reports_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_names, "MAX_NUMBER", 3)
    first = str(tmp_path / "model.dld-report.json")
    for number in (1, 2, 3):
        Path(numbered(first, number)).write_text("{}")
    with pytest.raises(SpecError, match=r"3 reports named after .* give the report an output path"):
        free_report_path(first)


def test_api_and_cli_runs_keep_every_report_and_an_explicit_path_is_replaced(
    resnet_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    default = resnet_path.with_name("resnet.dld-report.json")
    profile(resnet_path, seed=1, **FAST)
    kept = default.read_bytes()
    second = profile(resnet_path, seed=2, **FAST)
    assert default.read_bytes() == kept  # the first report is untouched
    assert load_report(numbered(str(default), 2)).summary.settings["seed"] == second.summary.settings["seed"] == 2
    assert main(["profile", str(resnet_path), "--iterations", "2", "--warmup", "0", "--threads", "1"]) == 0
    assert f"report: {numbered(str(default), 3)}" in capsys.readouterr().out
    assert default.read_bytes() == kept
    # a path the user names is theirs: written as given, as every dld output
    assert main(["profile", str(resnet_path), "-o", str(default), "--iterations", "2", "--warmup", "0"]) == 0
    assert default.read_bytes() != kept and not Path(numbered(str(default), 4)).exists()


def test_a_report_a_live_run_will_write_is_taken(resnet_path: Path) -> None:
    """Two runs started together (a remote one's report comes home only at its end) get two names."""
    first = start_activity(profile_spec(resnet_path, iterations=100_000, warmup=0, threads=1), remember=False)
    try:
        second = profile_spec(resnet_path, **FAST)
        assert first.spec.report_path() == str(resnet_path.with_name("resnet.dld-report.json"))
        assert second.report_path() == numbered(first.spec.report_path(), 2)
    finally:
        first.cancel()
        first.wait(60)
    assert profile_spec(resnet_path, **FAST).report_path() == first.spec.report_path()  # cancelled: free again


def test_panel_runs_of_a_document_keep_both_reports_beside_its_file(tmp_path: Path, resnet_path: Path) -> None:
    model = tmp_path / "mine.onnx"
    shutil.copyfile(resnet_path, model)
    document = Document.open(model)
    paths = []
    for _ in range(2):
        panel = profile_in_notebook(document, run=True, **FAST)
        result = panel.wait(120)
        assert result is not None and result.ok, result and result.error
        paths.append(result.report_path)
    assert paths == [str(tmp_path / "mine.dld-report.json"), str(tmp_path / "mine-2.dld-report.json")]
    assert all(Path(p).is_file() for p in paths)
