"""`dld check`: the type check list on the command line, with exit codes scripts can rely on."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from dld_jupyter.cli.main import main
from dld_jupyter.models import SAMPLE_MODEL


def add_missing_input(path: Path) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Add", ["a"], ["c"], name="add0")],
        "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.save(model, path)
    return path


def test_clean_model_exits_zero_with_lint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SAMPLE_MODEL), "--polygraphy"]) == 0
    assert "0 error(s)" in capsys.readouterr().out


def test_unconnected_mandatory_input_is_an_error_bound_to_its_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = add_missing_input(tmp_path / "bad.onnx")
    assert main(["check", str(model), "--json"]) == 1
    diagnostics = json.loads(capsys.readouterr().out)
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert errors and errors[0]["node"] == "add0"
    assert "These mandatory inputs are not connected: 1" in errors[0]["message"]


def test_unreadable_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x00not a model")
    assert main(["check", str(junk)]) == 2
    assert "dld check:" in capsys.readouterr().out
