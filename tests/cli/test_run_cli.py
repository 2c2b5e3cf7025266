"""`dld run` (issue 29): a real export run on a PNG and an NPY, outputs and dumped inner values in one .npz equal
to a plain ONNX Runtime run that outputs them; the output guard refuses to replace an input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from PIL import Image

from dld_jupyter.activities.analysis.inputs import InputSource, model_input_specs
from dld_jupyter.cli.main import main

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def _plain(path: Path, names: list[str], feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    model = onnx.load(str(path))
    declared = {o.name for o in model.graph.output}
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names if n not in declared)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return list(ort.InferenceSession(model.SerializeToString(), options).run(names, feeds))


def test_run_saves_outputs_and_dumps_equal_to_ort(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "mobilenet_v3_small_w05.onnx"
    png = tmp_path / "cat.png"
    Image.fromarray(np.random.default_rng(1).integers(0, 256, (150, 200, 3), dtype=np.uint8)).save(png)
    conv = next(n for n in onnx.load(str(path)).graph.node if n.op_type == "Conv")
    out = tmp_path / "out.npz"
    assert main(["run", str(path), "--input", f"input={png}", "--dump", conv.name, "-o", str(out)]) == 0
    [spec] = model_input_specs(path)
    feeds = {"input": InputSource.of(png).load(spec)}
    logits, inner = _plain(path, ["logits", conv.output[0]], feeds)
    with np.load(out) as saved:
        assert sorted(saved.files) == sorted(["logits", conv.output[0]])
        assert np.allclose(saved["logits"], logits) and np.allclose(saved[conv.output[0]], inner)
    assert "logits\tfloat32\t[1, 10]" in capsys.readouterr().out


def test_run_with_integer_inputs_and_the_output_guard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "bert_tiny.onnx"
    ids = np.array([[101, 5, 77, 102]], dtype=np.int64)
    np.save(tmp_path / "ids.npy", ids)
    out = tmp_path / "bert.npz"
    assert (
        main(
            [
                "run",
                str(path),
                "--input",
                f"input_ids={tmp_path / 'ids.npy'}",
                "--input",
                "attention_mask=zeros",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    names = [o.name for o in onnx.load(str(path)).graph.output]
    expected = _plain(path, names, {"input_ids": ids, "attention_mask": np.zeros_like(ids)})
    with np.load(out) as saved:
        assert all(np.allclose(saved[n], e) for n, e in zip(names, expected, strict=True))
    assert main(["run", str(path), "-o", str(tmp_path / "out.npy")]) == 2  # not an .npz
    assert (
        main(["run", str(path), "--input", f"input_ids={tmp_path / 'ids.npy'}", "-o", str(tmp_path / "ids.npy")]) == 2
    )
    assert "would destroy that input" in capsys.readouterr().err
    np.save(tmp_path / "f.npy", ids.astype(np.float32))
    assert main(["run", str(path), "--input", f"input_ids={tmp_path / 'f.npy'}", "-o", str(out)]) == 2
    assert "expects int64" in capsys.readouterr().err
