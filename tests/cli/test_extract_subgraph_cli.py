"""`dld extract-subgraph`: the Loop body and the nested If branch of the real scripted-GRU export as standalone
models that pass the full checker and run in onnxruntime; bad input is exit 2 with a message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.cli.main import main

GRU = Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted.onnx"


def test_nested_branch_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "then.onnx"
    slots = ["--slot", "/Loop:body", "--slot", "/If:then_branch"]
    assert main(["extract-subgraph", str(GRU), *slots, "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out.resolve())
    onnx.checker.check_model(onnx.load(str(out)), full_check=True)
    z, n, h = (np.full((1, 16), v, np.float32) for v in (0.25, 0.5, 2.0))
    (result,) = ort.InferenceSession(str(out)).run(None, {"/Sigmoid_1_output_0": z, "/Tanh_output_0": n, "h.31": h})
    np.testing.assert_allclose(result, (1 - z) * n + z * h)


def test_default_name_beside_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "gru.onnx"
    model.write_bytes(GRU.read_bytes())
    assert main(["extract-subgraph", str(model), "--slot", "n7:body"]) == 0  # by designer id as well
    assert Path(capsys.readouterr().out.strip()) == (tmp_path / "gru_body.onnx").resolve()
    session = ort.InferenceSession(str(tmp_path / "gru_body.onnx"))
    assert [i.name for i in session.get_inputs()][:3] == ["t.1", "cond", "h.31"]


@pytest.mark.parametrize(
    "slot,message",
    [
        ("/Nope:body", "no operator nodes are named '/Nope'"),
        ("/Loop:then_branch", "no subgraph attribute 'then_branch'"),
        ("/Loop:body[3]", "holds one graph"),
    ],
)
def test_bad_slots_are_exit_2_with_a_message(slot: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract-subgraph", str(GRU), "--slot", slot, "-o", "unused.onnx"]) == 2
    assert message in capsys.readouterr().err
    assert not Path("unused.onnx").exists()
