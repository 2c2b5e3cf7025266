"""`dld convert-fp16` and `dld sanitize`: files written, JSON status, exit codes 0/1/2/3."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.transforms import polygraphy_glue

REAL = Path(__file__).parents[1] / "data" / "real"


def test_convert_fp16_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bert fp16.onnx"
    assert main(["convert-fp16", str(REAL / "bert_tiny.onnx"), "-o", str(out), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["ok"] and status["checker_ok"] and status["fp16_weight_share"] >= 0.9
    assert status["output"] == str(out.resolve()) and status["tensors_converted"] > 0
    assert {o["name"] for o in status["comparison"]["outputs"]} == {"last_hidden_state", "pooler_output"}
    onnx.checker.check_model(onnx.load(str(out)))


def test_sanitize_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.onnx"
    assert main(["sanitize", str(REAL / "gpt2_tiny.onnx"), "-o", str(out)]) == 0
    assert "outputs equal within 1e-05" in capsys.readouterr().out
    args = ["sanitize", str(REAL / "bert_tiny.onnx"), "-o", str(out), "--passes", "1", "--fold-size-threshold", "1K"]
    assert main([*args, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["passes"] == 1 and status["nodes_after"] < status["nodes_before"] and status["outputs_equal"]


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    out = str(tmp_path / "o.onnx")
    assert main(["sanitize", str(tmp_path / "missing.onnx"), "-o", out, "--json"]) == 2
    assert "does not exist" in json.loads(capsys.readouterr().out)["error"]
    assert main(["sanitize", str(REAL / "gpt2_tiny.onnx"), "-o", out, "--passes", "0"]) == 2
    half = tmp_path / "half.onnx"
    assert main(["convert-fp16", str(REAL / "gpt2_tiny.onnx"), "-o", str(half), "--no-compare"]) == 0
    assert main(["convert-fp16", str(half), "-o", out]) == 1  # already float16: a failed run
    capsys.readouterr()

    def missing(what: str) -> None:
        raise polygraphy_glue.Unavailable(what, "Polygraphy cannot be imported (test).", "pip install polygraphy")

    monkeypatch.setattr(polygraphy_glue, "polygraphy_onnx", missing)
    monkeypatch.setattr("dld_jupyter.transforms.sanitize.polygraphy_onnx", missing)
    assert main(["sanitize", str(REAL / "gpt2_tiny.onnx"), "-o", out, "--json"]) == 3
    assert "pip install polygraphy" in json.loads(capsys.readouterr().out)["error"]


def test_convert_tensors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.onnx"
    args = ["convert-tensors", str(REAL / "bert_tiny.onnx"), "-o", str(out), "--to", "float16"]
    # A float16 bias beside float32 activations breaks Add's type constraint: refused per tensor, exit 1, and the
    # model written keeps it float (issue 31, finding 5: this once wrote a type-broken model with exit 0).
    assert main([*args, "--initializers", "encoder", "--from", "float", "--json"]) == 1
    status = json.loads(capsys.readouterr().out)
    assert not status["ok"] and status["converted"] == 0 and status["errors"] > 0
    assert all("encoder" in t["label"] and "(Add), input 0 'A' shares type T" in t["error"] for t in status["tensors"])
    assert status["verdict"]["ok"]
    model = onnx.load(str(out))
    kinds = {i.name: i.data_type for i in model.graph.initializer}
    assert all(kinds[t["label"]] == onnx.TensorProto.FLOAT for t in status["tensors"])
    assert main(args) == 2  # nothing selected
    assert main([*args[:-1], "float17", "--initializers", "."]) == 2
