"""`dld convert-fp16|sanitize|convert-tensors` never exit 0 on a model onnxruntime refuses (issue 31, finding 5):
what they write loads in a real onnxruntime session, and what they cannot make valid exits 1 with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.cli.main import main
from tests.transforms import typed_models as models


def test_convert_fp16_writes_only_models_that_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = models.save(models.function_constant("value_float"), tmp_path / "f.onnx")
    out = tmp_path / "half.onnx"
    assert main(["convert-fp16", str(source), "-o", str(out), "--no-compare", "--json"]) == 0
    models.loads(out)  # onnxruntime refused it: "B has inconsistent type tensor(float)" inside the function
    status = json.loads(capsys.readouterr().out)
    assert status["ok"] and status["verdict"]["ok"] and not status["verdict"]["problems"]
    quantized = models.save(models.quantized(17), tmp_path / "q.onnx")
    assert main(["convert-fp16", str(quantized), "-o", str(out), "--no-compare"]) == 0
    assert "verified: onnx.checker (full check) and an onnxruntime CPU session load: OK" in capsys.readouterr().out
    models.loads(out)


def test_convert_fp16_refusals_exit_1_and_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "half.onnx"
    resize = models.save(models.resize_by_constant(), tmp_path / "resize.onnx")
    assert main(["convert-fp16", str(resize), "-o", str(out), "--no-compare"]) == 1
    error = capsys.readouterr().err
    assert "would not be a valid model, so nothing was written" in error and "resize" in error
    assert not out.exists()
    double = models.save(models.float64_only(), tmp_path / "double.onnx")
    assert main(["convert-fp16", str(double), "-o", str(out), "--json"]) == 1
    status = json.loads(capsys.readouterr().out)
    assert not status["ok"] and "computes in float64" in status["error"] and not out.exists()


def test_sanitize_a_function_in_an_if_inside_a_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = models.save(models.function_in_if_in_loop(), tmp_path / "loop.onnx")
    out = tmp_path / "s.onnx"
    assert main(["sanitize", str(source), "-o", str(out), "--json"]) == 0  # was a RecursionError
    status = json.loads(capsys.readouterr().out)
    assert status["ok"] and status["outputs_equal"] and status["verdict"]["ok"]
    feeds = {"N": np.array(2, np.int64), "X": np.array([1.0, 2.0, 3.0], np.float32)}
    assert np.allclose(models.run(out, feeds)[0], [4.0, 8.0, 12.0])
    constant = next(n for n in onnx.load(str(out)).functions[0].node if n.op_type == "Constant")
    assert constant.attribute[0].t.data_type == onnx.TensorProto.FLOAT  # was DOUBLE


def test_convert_tensors_names_the_node_and_its_allowed_types(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = models.save(models.quantized(17), tmp_path / "q.onnx")
    out = tmp_path / "t.onnx"
    args = ["convert-tensors", str(source), "-o", str(out), "--to", "float16", "--initializers", "^scale$"]
    assert main(args) == 1  # was exit 0 and "0 errors"
    text = capsys.readouterr().out
    assert "0 tensors converted to float16, 1 errors" in text
    assert "(QuantizeLinear), input 1 'y_scale' allows tensor(float) at opset 17 of ai.onnx, not float16" in text
    models.loads(out)
    weight = models.save(models.function_reads_weight(), tmp_path / "fw.onnx")
    refused = tmp_path / "refused.onnx"
    args = ["convert-tensors", str(weight), "-o", str(refused), "--to", "float16", "--initializers", "^w$"]
    assert main([*args, "--json"]) == 1
    status = json.loads(capsys.readouterr().out)
    assert "would not be a valid model" in status["error"] and not refused.exists()
