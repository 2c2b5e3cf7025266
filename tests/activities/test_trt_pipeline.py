"""The TensorRT pipeline end to end: spec -> worker process -> engine, metadata and report, with the runtime
replaced by the stand-in that replays recorded real TensorRT outputs (tests/activities/trt_standin.py). Without
TensorRT and without the stand-in, both activities end "unavailable" with the install hint."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from dld_jupyter.activities import ProfilerSettings, TrtBuildSpec, TrtProfileSpec, TrtSettings, run_activity
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.tensorrt.mapping import BuildPlan, TrtEnum
from dld_jupyter.document import Document
from dld_jupyter.report_format.engine_graph import load_engine_graph
from dld_jupyter.report_format.io import load_report
from dld_jupyter.report_format.trt_names import parse_layer_name
from tests.activities.trt_standin import ENGINE_MAGIC, SAMPLE, check_plan, sample_dir

STANDIN = "tests.activities.trt_standin:StandInRuntime"


def _sample_model(path: Path) -> Path:
    """An ONNX chain whose node names are the ONNX sources named by the recorded engine's layers."""
    layers = json.loads((sample_dir() / f"{SAMPLE}.graph.json").read_text())["Layers"]
    names = list(dict.fromkeys(s for layer in layers for s in parse_layer_name(layer["Name"]).sources))
    nodes, previous = [], "input_1"
    for index, name in enumerate(names):  # the last output is the engine's output binding, as the parser names it
        output = "predictions" if index == len(names) - 1 else f"t{index}"
        nodes.append(helper.make_node("Relu", [previous], [output], name=name))
        previous = output
    graph = helper.make_graph(
        nodes,
        "replayed",
        [helper.make_tensor_value_info("input_1", TensorProto.FLOAT, ["N", 224, 224, 3])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, ["N", 224, 224, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    source = path / "source.onnx"
    onnx.save(model, str(source))
    doc = Document.open(source)
    doc.trt.set_optimization_profile("input_1", [1, 224, 224, 3], [32, 224, 224, 3], [32, 224, 224, 3])
    conv = next(n for n in doc.model.graph if n.name == "Conv__435")
    doc.trt.set_layer_precision([doc.node_id(conv)], "fp16")
    target = path / "resnet50.onnx"
    doc.save(target)
    return target


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return _sample_model(tmp_path)


def test_profile_through_the_worker(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    spec = TrtProfileSpec(
        model=str(model),
        settings=TrtSettings(fp16=True, typing="obey"),
        profiler=ProfilerSettings(iterations=7, warmup=3, gpu_metrics=False),
    )
    result = run_activity(spec, remember=False)
    assert result.ok, (result.error, [line.message for line in result.logs])
    report = load_report(result.report_path or "")
    summary = report.summary
    assert summary.backend == "tensorrt" and summary.passes == 7 and summary.warmup_passes == 3
    assert summary.profiled_median_ms is not None and summary.device_memory_bytes == 0
    assert "--layerPrecisions=Conv__435:fp16" in summary.settings["trtexec"]
    assert "--minShapes=input_1:1x224x224x3" in summary.settings["trtexec"]
    assert summary.settings["runtime"].startswith("stand-in")
    assert report.system["tensorrt_runtime"] == "stand-in (replay)"
    assert len(report.layers) == 86
    fused = next(layer for layer in report.layers if layer.name == "Conv__435 + resnet50/conv1_relu/Relu")
    assert fused.onnx_nodes == ["Conv__435", "resnet50/conv1_relu/Relu"]
    assert fused.type == "CaskConvolution" and fused.precision == "FP16" and fused.median_ms == pytest.approx(0.229376)
    assert fused.input_dims == [[32, 3, 224, 224]]
    reformat = next(layer for layer in report.layers if layer.type == "Reformat")
    assert reformat.overhead
    assert len(report.timeline) == 86  # the recording ran without data transfers: no copy rows


def test_export_then_profile_the_prebuilt_engine(model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    engine, metadata = tmp_path / "out.engine", tmp_path / "out.trt.json"
    spec = TrtBuildSpec(model=str(model), engine=str(engine), metadata=str(metadata), open_metadata=True)
    result = run_activity(spec, remember=False)
    assert result.ok, result.error
    assert engine.read_bytes() == ENGINE_MAGIC
    graph = load_engine_graph(metadata)
    assert len(graph.layers) == 86 and graph.inputs == ["input_1"] and graph.outputs == ["predictions"]
    # No pretend report: a build measures nothing (issue 25); its artifacts are the engine and layer information.
    assert result.report_path is None and result.artifacts == {"engine": str(engine), "layer_info": str(metadata)}
    assert not list(tmp_path.glob("*dld-report*"))
    profile = TrtProfileSpec(
        model=str(model), profiler=ProfilerSettings(iterations=2, warmup=0, prebuilt_engine=str(engine))
    )
    result = run_activity(profile, remember=False)
    assert result.ok, result.error
    assert "--loadEngine=" in load_report(result.report_path or "").summary.settings["trtexec"]


def test_standin_refuses_what_the_real_api_lacks(model: Path) -> None:
    base = BuildPlan(
        network={},
        config={},
        engine={},
        profiles={},
        layer_precisions={},
        plugins=(),
        tactic_sources={},
        calibration_cache=None,
    )
    with pytest.raises(SpecError, match=r"CreateConfig has no keyword\(s\) \['fp64'\]"):
        check_plan(str(model), BuildPlan(**{**base.__dict__, "config": {"fp64": True}}))
    with pytest.raises(SpecError, match=r"trt.DataType.FP64 is not in the TensorRT 10 API"):
        check_plan(
            str(model), BuildPlan(**{**base.__dict__, "layer_precisions": {"Conv__435": TrtEnum("DataType", "FP64")}})
        )
    with pytest.raises(SpecError, match="the network has no layer"):
        check_plan(
            str(model), BuildPlan(**{**base.__dict__, "layer_precisions": {"nope": TrtEnum("DataType", "HALF")}})
        )
    with pytest.raises(SpecError, match="dynamic input is missing dimensions in profile 0"):
        check_plan(str(model), base)


def test_without_tensorrt_both_activities_are_unavailable(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DLD_TENSORRT_RUNTIME", raising=False)
    import importlib.util

    if importlib.util.find_spec("tensorrt") is not None:
        pytest.skip("TensorRT is installed here")
    for spec in (TrtProfileSpec(model=str(model)), TrtBuildSpec(model=str(model))):
        result = run_activity(spec, remember=False)
        assert result.error_kind == "unavailable" and result.exit_code == 3
        assert "unavailable: TensorRT is not installed in this Python environment: pip install tensorrt" in (
            result.error or ""
        )


def test_python_api_exports_an_unsaved_document_and_profiles(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dld_jupyter.activities import export_engine, profile

    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    doc = Document.open(model)
    doc.trt.clear_optimization_profile("input_1")
    doc.trt.set_optimization_profile("input_1", [1, 224, 224, 3], [8, 224, 224, 3], [16, 224, 224, 3])  # unsaved
    exported = export_engine(doc, typing="obey", fp16=True, workspace_mib=64)
    assert exported.engine == str(model.with_suffix(".engine")) and Path(exported.engine).read_bytes() == ENGINE_MAGIC
    trtexec = exported.trtexec
    assert "--optShapes=input_1:8x224x224x3" in trtexec and "--memPoolSize=workspace:64" in trtexec
    report = profile(model, backend="tensorrt", iterations=3, warmup=1, gpu_metrics=False, hide_non_compute=True)
    assert report.summary.passes == 3 and "--noDataTransfers" in report.summary.settings["trtexec"]


def test_a_profile_of_unsaved_edits_names_the_users_file(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TensorRT specs carry `source_document` as ONNX Runtime's do (issue 35): the report of a run of a copy of
    unsaved edits names the user's file, so its links find that document's designer, then the file (it named only
    the temporary copy), and the run's settings are remembered for that file (an export's were kept for the copy)."""
    from dld_jupyter.activities.cache import SettingsStore
    from dld_jupyter.activities.kinds.export_engine import export_spec
    from dld_jupyter.activities.kinds.profile import profile_spec
    from dld_jupyter.activities.model_ref import ModelRef
    from dld_jupyter.widgets.report.report_viewer import ReportViewer

    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    doc = Document.open(model)
    doc.trt.clear_optimization_profile("input_1")
    doc.trt.set_optimization_profile("input_1", [1, 224, 224, 3], [8, 224, 224, 3], [16, 224, 224, 3])  # unsaved
    with ModelRef.of(doc) as ref:
        spec = profile_spec(ref, "tensorrt", typing="obey", fp16=True, iterations=3, warmup=1, gpu_metrics=False)
        assert spec.source_document == str(model) and spec.model == ref.path != str(model)
        assert TrtProfileSpec.from_json(spec.to_json()) == spec  # the worker and a target read it back
        assert any(str(model) in note and "unsaved" in note for note in spec.command_line().unsaid)
        result = run_activity(spec)
        assert result.ok, (result.error, [line.message for line in result.logs])
        report = load_report(result.report_path or "")
        assert report.summary.model_path == ref.path and report.summary.model == "resnet50"
        assert report.summary.settings["source_document"] == str(model)
        assert "--optShapes=input_1:8x224x224x3" in report.summary.settings["trtexec"]  # the edits ran
        assert ReportViewer([report])._source_document(0) == str(model)  # what its layer links open first
        remembered = SettingsStore().recall(model, "tensorrt-profile")
        assert remembered is not None and remembered["profiler"]["iterations"] == 3
        assert "source_document" not in remembered
        build = export_spec(ref, typing="obey", fp16=True)
        assert build.source_document == str(model) and build.model == ref.path
        exported = run_activity(build)
        assert exported.ok, exported.error
        assert SettingsStore().recall(model, "tensorrt-build") is not None
        assert SettingsStore().recall(ref.path, "tensorrt-build") is None
