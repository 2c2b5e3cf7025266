"""A batch size the model cannot take is refused with one message by every front door (issue 26, item 5): the
real GPT-2 export has a fixed [1, 16] input, and `--batch-size 32` used to run batch 1 under a report saying 32."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities import OrtProfileSpec, run_activity
from dld_jupyter.activities.errors import ActivityError, SpecError
from dld_jupyter.activities.runtimes.onnxruntime.inputs import batch_problem
from dld_jupyter.activities.runtimes.tensorrt.model import build_shapes, read_model_attributes
from dld_jupyter.cli.main import main as dld_main

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _graph(name: str) -> onnx.GraphProto:
    return onnx.load(str(REAL / name), load_external_data=False).graph


def test_rule_on_real_exports() -> None:
    fixed = batch_problem(_graph("gpt2_tiny.onnx"), 32)
    assert fixed is not None and fixed.startswith("batch 32: the model's inputs have a fixed batch")
    assert "input_ids: [1, 16]" in fixed and "would measure batch 1, not 32" in fixed
    several = batch_problem(_graph("bert_tiny.onnx"), 4)  # ['batch', 'sequence']: two free dimensions
    assert several is not None and "not its only free one" in several
    assert batch_problem(_graph("mobilenet_v3_small_w05.onnx"), 32) is None  # ['batch', 3, 96, 96] takes it
    assert batch_problem(_graph("ssdlite_tiny.onnx"), 1) is None  # its own batch
    assert batch_problem(_graph("gpt2_tiny.onnx"), None) is None


def test_cli_refuses_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "gpt2_tiny.onnx"
    model.write_bytes((REAL / "gpt2_tiny.onnx").read_bytes())
    code = dld_main(["profile", str(model), "--batch-size", "32", "--iterations", "1", "--warmup", "0"])
    assert code == 2
    err = capsys.readouterr().err
    assert "batch 32: the model's inputs have a fixed batch" in err, err
    assert not list(tmp_path.glob("*.dld-report.json"))


def test_python_api_and_worker_refuse(tmp_path: Path) -> None:
    model = tmp_path / "gpt2_tiny.onnx"
    model.write_bytes((REAL / "gpt2_tiny.onnx").read_bytes())
    with pytest.raises(ActivityError, match="batch 32: the model's inputs have a fixed batch"):
        dld.profile(str(model), batch_size=32, iterations=1, warmup=0)
    # The run panel and sweeps start the same spec: the worker itself refuses, whoever skipped the front check.
    spec = OrtProfileSpec(model=str(model), batch_size=32, iterations=1, warmup=0)
    result = run_activity(dataclasses.replace(spec, output=str(tmp_path / "r.json")))
    assert not result.ok and "batch 32: the model's inputs have a fixed batch" in (result.error or "")
    assert not (tmp_path / "r.json").exists()


def test_tensorrt_build_shapes_refuse_a_fixed_batch() -> None:
    attrs = read_model_attributes(str(REAL / "gpt2_tiny.onnx"))
    with pytest.raises(SpecError, match="batch 32: no input of the model has a single leading wildcard"):
        build_shapes(attrs, 32)
    assert build_shapes(attrs, 1) == {}
    assert set(build_shapes(read_model_attributes(str(REAL / "mobilenet_v3_small_w05.onnx")), 8)) == {"input"}
