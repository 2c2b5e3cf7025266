"""`dld profile` and `dld-prof`: options, --json, exit codes, the stdout triage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
import pytest

from dld_jupyter.cli import prof
from dld_jupyter.cli.main import main as dld_main
from tests import models

FAST = ["-n", "3", "--warmup", "1", "--threads", "1"]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "resnet.onnx"
    onnx.save(models.resnet_like(blocks=1), str(path))
    return path


def test_profile_json_success(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "r.json"
    out.parent.mkdir()
    code = dld_main(["profile", str(model), *FAST, "-o", str(out), "--json", "--no-optimize"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["status"] == "succeeded" and data["report"] == str(out) and out.is_file()
    assert data["summary"]["passes"] == 3 and data["summary"]["optimization"] == "disabled"
    assert data["summary"]["median_ms"] > 0


def test_profile_default_output_is_next_to_the_model(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dld_main(["profile", str(model), *FAST]) == 0
    assert "report: " in capsys.readouterr().out
    assert model.with_name("resnet.dld-report.json").is_file()


@pytest.mark.parametrize(
    ("extra", "code", "kind"),
    [
        (["--iterations", "0"], 2, "bad_input"),
        (["--random-inputs", "--input-folder", "x"], 2, "bad_input"),
        (["--input-folder", "/nonexistent/folder"], 2, "bad_input"),
        (["--provider", "cuda"], 3, "unavailable"),
    ],
)
def test_profile_exit_codes(
    model: Path, extra: list[str], code: int, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = dld_main(["profile", str(model), *FAST, *extra, "--json"])
    data = json.loads(capsys.readouterr().out)
    if kind == "unavailable" and result == 0:  # a GPU host with onnxruntime-gpu
        return
    assert result == code and data["exit_code"] == code and data["error_kind"] == kind and data["error"]


def test_bad_model_and_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"nope")
    assert dld_main(["profile", str(bad), *FAST]) == 2
    assert "not a readable ONNX" in capsys.readouterr().err  # the document layer's refusal, before any run
    with pytest.raises(SystemExit) as exit_info:
        dld_main(["profile", str(bad), "--provider", "tpu"])
    assert exit_info.value.code == 2


def test_help_documents_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        dld_main(["profile", "--help"])
    text = capsys.readouterr().out
    for option in [
        "--output",
        "--provider",
        "--iterations",
        "--warmup",
        "--optimize",
        "--no-optimize",
        "--random-inputs",
        "--input-folder",
        "--batch-size",
        "--device",
        "--seed",
        "--threads",
        "--gpu-metrics",
        "--lock-clocks",
        "--sampling-ms",
        "--json",
        "Exit codes",
    ]:
        assert option in text, option
    with pytest.raises(SystemExit):
        prof.main(["--help"])
    assert "--save" in capsys.readouterr().out


def test_dld_prof_prints_the_triage_without_keeping_a_report(model: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "dld_jupyter.cli.prof", str(model), *FAST, "-q"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for heading in ["Network:", "Median pass:", "Target:             local (host ", "Top 10 layers:",
                    "Time by layer type:", "Conv"]:
        assert heading in done.stdout
    assert sorted(p.name for p in model.parent.iterdir()) == ["resnet.onnx"]


def test_dld_prof_save_and_exit_codes(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert prof.main([str(model), *FAST, "-q", "--save", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "Top 3 layers:" in out and "report: " in out
    assert model.with_name("resnet.dld-report.json").is_file()
    assert prof.main([str(model.with_name("missing.onnx")), "-q"]) == 2
    assert prof.main([str(model), "-q", "--provider", "cuda", *FAST]) in (0, 3)
