"""A prebuilt engine is checked against the model before it is profiled, and refitted when it can be (issue 26,
item 7): the recorded layer information of a real trtexec engine (shared/trt-samples: a TF ResNet-50, FP16) names
its I/O bindings and the ONNX nodes of its layers; the run went on with any engine before, whatever its model or
shapes, and never refitted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities import ProfilerSettings, TrtBuildSpec, TrtProfileSpec, TrtSettings, run_activity
from dld_jupyter.activities.runtimes.tensorrt.prebuilt import fed_shapes, provenance_problem, shape_problem
from dld_jupyter.document import Document
from tests.activities.test_trt_pipeline import STANDIN, _sample_model
from tests.activities.trt_standin import SAMPLE, sample_dir

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _info() -> dict:
    return json.loads((sample_dir() / f"{SAMPLE}.graph.json").read_text())


def test_another_models_engine_is_named(tmp_path: Path) -> None:
    other = onnx.load(str(REAL / "mobilenet_v3_small_w05.onnx"), load_external_data=False)
    problem = provenance_problem(_info(), other, "r50.engine")
    assert problem is not None and "r50.engine was not built from this model" in problem
    assert "['input_1', 'predictions']" in problem and "Use prebuilt engine" in problem
    own = onnx.load(str(_sample_model(tmp_path)), load_external_data=False)
    assert provenance_problem(_info(), own, "r50.engine") is None
    for node in own.graph.node:  # same I/O names, other nodes: still not its model
        node.name = f"other_{node.name}"
    assert "none of its" in (provenance_problem(_info(), own, "r50.engine") or "")


def test_shapes_the_engine_cannot_take_are_named(tmp_path: Path) -> None:
    own = onnx.load(str(_sample_model(tmp_path)), load_external_data=False)
    assert shape_problem(_info(), fed_shapes(own, {"input_1": (32, 224, 224, 3)}), "e") is None
    problem = shape_problem(_info(), fed_shapes(own, {"input_1": (8, 224, 224, 3)}), "e")
    assert problem is not None
    assert "input_1: the engine takes [32, 224, 224, 3], the run would feed [8, 224, 224, 3]" in problem


def _engine(model: Path, tmp_path: Path, refit: str) -> Path:
    engine = tmp_path / f"{refit}.engine"
    result = run_activity(TrtBuildSpec(model=str(model), engine=str(engine), settings=TrtSettings(refit=refit)),
                          remember=False)
    assert result.ok, result.error
    return engine


def _profile(model: Path, engine: Path) -> object:
    spec = TrtProfileSpec(model=str(model), profiler=ProfilerSettings(iterations=2, warmup=0, gpu_metrics=False,
                                                                      prebuilt_engine=str(engine)))
    return run_activity(spec, remember=False)


def test_a_refittable_engine_is_refitted_and_another_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    model = _sample_model(tmp_path)
    refittable, fixed = _engine(model, tmp_path, "refit"), _engine(model, tmp_path, "none")
    result = _profile(model, refittable)
    logs = [line.message for line in result.logs]
    assert result.ok, result.error
    assert f"refitted the prebuilt engine with the weights of {model}" in logs
    result = _profile(model, fixed)
    assert result.ok and any("not refittable" in line.message for line in result.logs)
    other = tmp_path / "mobilenet.onnx"
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", other)
    result = _profile(other, refittable)
    assert not result.ok and result.error_kind == "bad_input"
    assert "was not built from this model" in (result.error or "")
    assert not (tmp_path / "mobilenet.dld-report.json").exists()
    doc = Document.open(model)  # the model's profile now asks for batch 8; the engine was built at 32
    doc.trt.set_optimization_profile("input_1", [1, 224, 224, 3], [8, 224, 224, 3], [32, 224, 224, 3])
    doc.save()
    result = _profile(model, refittable)
    assert not result.ok and "the engine takes [32, 224, 224, 3], the run would feed [8, 224, 224, 3]" in (
        result.error or "")
