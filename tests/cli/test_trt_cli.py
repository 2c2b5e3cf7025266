"""TensorRT on the command line: dry runs print every setting and a trtexec command line carrying the model's
optimization profiles and layer precisions; real runs without TensorRT exit 3; `dld engine show` on every sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import onnx
import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.cli.prof import main as prof_main
from dld_jupyter.document import Document
from tests import models
from tests.reports.conftest import COPY, shared_samples


@pytest.fixture(autouse=True)
def _no_standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DLD_TENSORRT_RUNTIME", raising=False)
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def model(tmp_path: Path) -> Path:
    source = tmp_path / "src.onnx"
    onnx.save(models.resnet_like(1), str(source))
    doc = Document.open(source)
    doc.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [16, 3, 32, 32])
    doc.trt.set_layer_precision([doc.node_id(doc.model.graph.node(0))], "fp16")
    path = tmp_path / "net.onnx"
    doc.save(path)
    return path


def _dry(capsys: pytest.CaptureFixture[str], verb: str, model: Path, options: str, flags: tuple[str, ...]) -> Any:
    """`dld VERB MODEL OPTIONS --dry-run --json` (options split on spaces): its JSON, after checking that the trtexec
    command line carries each of `flags`."""
    assert main([verb, str(model), *options.split(), "--dry-run", "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    argv_out = data["trtexec"]["argv"]
    assert [flag for flag in flags if flag not in argv_out] == []
    return data


def test_export_engine_dry_run(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = "-o x.engine --typing obey --fp16 --workspace-mib 256 --refit strip --metadata x.trt.json"
    data = _dry(capsys, "export-engine", model, options, (
        "--minShapes=input:1x3x32x32", "--optShapes=input:4x3x32x32", "--maxShapes=input:16x3x32x32",
        "--precisionConstraints=obey", "--layerPrecisions=/stem/Conv_0:fp16", "--fp16", "--memPoolSize=workspace:256",
        "--stripWeights", "--skipInference"))
    assert any(a.startswith("--saveEngine=") and a.endswith("x.engine") for a in data["trtexec"]["argv"])
    settings = data["spec"]["settings"]
    assert settings["workspace_mib"] == 256 and settings["refit"] == "strip" and len(settings) == 22
    assert data["model"]["layer_precisions"] == {"/stem/Conv_0": "fp16"}
    assert str(data["timing_cache"]).endswith(".cache") and "tensorrt" in str(data["timing_cache"])


def test_profile_dry_run(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ("--iterations=20", "--noDataTransfers", "--precisionConstraints=prefer", "--optShapes=input:4x3x32x32")
    data = _dry(capsys, "profile", model, "--backend tensorrt -n 20 --hide-non-compute --typing prefer", flags)
    assert data["spec"]["profiler"]["hide_non_compute"] is True


def test_dry_run_text_and_bad_input(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-engine", str(model), "--dry-run"]) == 0
    assert "Equivalent trtexec command:" in capsys.readouterr().out
    assert main(["export-engine", str(model), "--int8", "--fp8", "--dry-run"]) == 2
    assert "exclusive" in capsys.readouterr().err
    assert main(["profile", str(model), "--backend", "tensorrt", "--threads", "2", "--dry-run"]) == 2
    assert "--threads: ONNX Runtime options" in capsys.readouterr().err
    assert main(["profile", str(model), "--dry-run"]) == 2


def test_real_runs_without_tensorrt_exit_3(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    if importlib.util.find_spec("tensorrt") is not None:
        pytest.skip("TensorRT is installed here")
    assert main(["export-engine", str(model), "--json"]) == 3
    assert "unavailable: TensorRT is not installed" in json.loads(capsys.readouterr().out)["error"]
    assert main(["profile", str(model), "--backend", "tensorrt"]) == 3
    assert prof_main([str(model), "--backend", "tensorrt", "-q"]) == 3
    assert "pip install tensorrt" in capsys.readouterr().err


def _layer_info_files() -> list[Path]:
    folders = [f for f in (shared_samples(), COPY) if f is not None]
    # the FP16 engine in both folders (the QAT engine beside it has other layers: its own test below)
    names = ("fp16.engine.graph.json", ".trt.json")
    files = [p for f in folders for p in sorted(f.iterdir()) if p.name.endswith(names)]
    assert files
    return files


@pytest.mark.parametrize("path", _layer_info_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_engine_show_every_sample(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engine", "show", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Layers:    86 (FP16 83, FP32 3)" in text
    assert "Conv__435 + resnet50/conv1_relu/Relu" in text and "-> Conv__435, resnet50/conv1_relu/Relu" in text
    assert main(["engine", "show", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"] == ["input_1"] and data["outputs"] == ["predictions"]
    conv = next(layer for layer in data["layers"] if layer["type"] == "CaskConvolution")
    assert conv["precision"] == "FP16" and conv["tactic"] and conv["onnx_nodes"]
    assert all(
        link["target"] is None or link["source"] is None or link["source"] < link["target"] for link in data["links"]
    )


def test_engine_show_refuses_other_files(capsys: pytest.CaptureFixture[str]) -> None:
    profile = next(p for p in sorted(COPY.iterdir()) if p.name.endswith(".profile.json"))
    assert main(["engine", "show", str(profile)]) == 2
    assert 'expected an object with a "Layers" list' in capsys.readouterr().err


def test_engine_show_of_the_qat_engine(capsys: pytest.CaptureFixture[str]) -> None:
    """The QAT (INT8) build of the same network: its own layer count and precisions, fused Q/DQ names listed."""
    path = COPY / "tf-resnet50-rtx3090-qat.engine.graph.json"
    assert main(["engine", "show", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Layers:    63 (INT8 58, FP32 5)" in text
    assert "Outputs:   quant_predictions [32x1000] FP32" in text
    assert "QuantLinearNode__622, resnet50/quant_conv1_conv/BiasAdd" in text
