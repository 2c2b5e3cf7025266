"""Settings -> trtexec command line and Polygraphy/TensorRT build plan, option by option, on a model that carries
optimization profiles and layer precisions; Polygraphy keyword names checked against its real signatures."""

from __future__ import annotations

import inspect
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities import ProfilerSettings, SpecError, TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.mapping import (
    BuildPlan,
    TrtEnum,
    build_plan,
    export_command,
    profile_command,
)
from dld_jupyter.activities.runtimes.tensorrt.model import ModelTrtAttributes, read_model_attributes
from dld_jupyter.document import Document
from tests import models

DEFAULT_FLAGS = ["--tacticSources=-CUDNN,-CUBLAS,-CUBLAS_LT", "--builderOptimizationLevel=3"]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ResNet whose input ['N', 3, 32, 32] has a profile and whose first two nodes are fp16 and fp8."""
    folder = tmp_path_factory.mktemp("trt")
    source = folder / "src.onnx"
    onnx.save(models.resnet_like(1), str(source))
    doc = Document.open(source)
    doc.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [8, 3, 32, 32])
    first, second = (doc.node_id(doc.model.graph.node(i)) for i in (0, 1))
    doc.trt.set_layer_precision([first], "fp16")
    doc.trt.set_layer_precision([second], "fp8")
    path = folder / "net.onnx"
    doc.save(path)
    return path


def _plan(model: Path, **options: object) -> tuple[TrtSettings, BuildPlan]:
    settings = TrtSettings(**options)  # type: ignore[arg-type]
    return settings, build_plan(settings, read_model_attributes(str(model)), None)


def _flags(model: Path, **options: object) -> list[str]:
    settings, plan = _plan(model, **options)
    return export_command(settings, plan, "m.onnx", "m.engine", None).argv


PROFILE_FLAGS = [
    "--minShapes=input:1x3x32x32",
    "--optShapes=input:4x3x32x32",
    "--maxShapes=input:8x3x32x32",
]


def test_defaults(model: Path) -> None:
    argv = _flags(model)
    assert argv == [
        "trtexec",
        "--onnx=m.onnx",
        "--saveEngine=m.engine",
        *PROFILE_FLAGS,
        *DEFAULT_FLAGS,
        "--profilingVerbosity=detailed",
        "--skipInference",
    ]
    _, plan = _plan(model)
    assert plan.config["profiling_verbosity"] == TrtEnum("ProfilingVerbosity", "DETAILED")
    assert plan.config["tf32"] is True and plan.config["builder_optimization_level"] == 3
    assert plan.layer_precisions == {}  # typing "default": constraints ignored, and said so
    assert any("ignored" in note for note in plan.notes)


# option -> (flags that appear, CreateConfig/NetworkFromOnnxPath keyword -> value)
CASES: list[tuple[dict[str, object], list[str], dict[str, object]]] = [
    ({"fp16": True}, ["--fp16"], {"fp16": True}),
    ({"bf16": True}, ["--bf16"], {"bf16": True}),
    ({"int8": True}, ["--int8"], {"int8": True}),
    ({"fp8": True}, ["--fp8"], {"fp8": True}),
    ({"tf32": False}, ["--noTF32"], {"tf32": False}),
    ({"typing": "strongly-typed"}, ["--stronglyTyped"], {"net.strongly_typed": True}),
    ({"typing": "obey"}, ["--precisionConstraints=obey", "--layerPrecisions=/stem/Conv_0:fp16"], {}),
    ({"typing": "prefer"}, ["--precisionConstraints=prefer"], {"precision_constraints": "prefer"}),
    ({"sparsity": True}, ["--sparsity=enable"], {"sparse_weights": True}),
    ({"cudnn_cublas": True}, ["--tacticSources=+CUDNN,+CUBLAS,+CUBLAS_LT"], {}),
    ({"native_instancenorm": False}, ["--pluginInstanceNorm"], {"net.plugin_instancenorm": True}),
    ({"optimization_level": 5}, ["--builderOptimizationLevel=5"], {"builder_optimization_level": 5}),
    ({"max_aux_streams": 0}, ["--maxAuxStreams=0"], {"max_aux_streams": 0}),
    (
        {"hardware_compatible": True},
        ["--hardwareCompatibilityLevel=ampere+"],
        {"hardware_compatibility_level": TrtEnum("HardwareCompatibilityLevel", "AMPERE_PLUS")},
    ),
    (
        {"workspace_mib": 512},
        ["--memPoolSize=workspace:512"],
        {"memory_pool_limits": {TrtEnum("MemoryPoolType", "WORKSPACE"): 512 << 20}},
    ),
    ({"int8": True, "calibration_cache": "/c/calib.cache"}, ["--int8", "--calib=/c/calib.cache"], {}),
    ({"refit": "refit"}, ["--refit"], {"refittable": True, "strip_plan": False}),
    ({"refit": "strip"}, ["--stripWeights"], {"strip_plan": True, "refittable": False}),
    ({"version_compatible": True}, ["--versionCompatible"], {"version_compatible": True}),
    ({"device": 2}, ["--device=2"], {}),
    ({"plugins": ("/p/a.so", "/p/b.so")}, ["--staticPlugins=/p/a.so", "--staticPlugins=/p/b.so"], {}),
    (
        {"save_metadata": False},
        ["--profilingVerbosity=none"],
        {"profiling_verbosity": TrtEnum("ProfilingVerbosity", "NONE")},
    ),
]


@pytest.mark.parametrize(("options", "flags", "keywords"), CASES, ids=[str(c[0]) for c in CASES])
def test_each_option(model: Path, options: dict[str, object], flags: list[str], keywords: dict[str, object]) -> None:
    argv = _flags(model, **options)
    for flag in flags:
        assert flag in argv
    _, plan = _plan(model, **options)
    for key, value in keywords.items():
        target = plan.network if key.startswith("net.") else plan.config
        assert target[key.removeprefix("net.")] == value


def test_precisions_reach_trt_and_trtexec_says_what_it_cannot_express(model: Path) -> None:
    settings, plan = _plan(model, typing="obey")
    assert plan.layer_precisions == {
        "/stem/Conv_0": TrtEnum("DataType", "HALF"),
        "/stem/BatchNormalization_1": TrtEnum("DataType", "FP8"),
    }
    command = export_command(settings, plan, "m.onnx", "m.engine", "m.trt.json")
    assert "--layerPrecisions=/stem/Conv_0:fp16" in command.argv  # fp8 is not in trtexec's grammar
    assert "--exportLayerInfo=m.trt.json" in command.argv
    assert any("/stem/BatchNormalization_1:fp8" in note for note in command.notes)


def test_strongly_typed_drops_precision_tactics(model: Path) -> None:
    argv = _flags(model, typing="strongly-typed", fp16=True)
    assert "--fp16" not in argv and "--stronglyTyped" in argv


def test_int8_without_cache_says_placeholder_ranges(model: Path) -> None:
    _, plan = _plan(model, int8=True)
    assert plan.calibration_cache is None and any("placeholder dynamic ranges" in n for n in plan.notes)


def test_timing_cache_is_loaded_and_saved(model: Path) -> None:
    settings = TrtSettings()
    plan = build_plan(settings, read_model_attributes(str(model)), "/cache/t.cache")
    assert plan.config["load_timing_cache"] == "/cache/t.cache"
    assert plan.engine == {"save_timing_cache": "/cache/t.cache"}
    assert "--timingCacheFile=/cache/t.cache" in export_command(settings, plan, "m", "e", None).argv


def test_inferred_batch_and_missing_profiles() -> None:
    attrs = ModelTrtAttributes(inputs={"x": ["N", 3, 8, 8], "ids": ["b", "s"]})
    with pytest.raises(SpecError, match=r"none for x \['N', 3, 8, 8\], ids \['b', 's'\]"):
        build_plan(TrtSettings(), attrs, None)
    with pytest.raises(SpecError, match=r"none for ids"):
        build_plan(TrtSettings(batch_size=4), attrs, None)
    attrs = ModelTrtAttributes(inputs={"x": ["N", 3, 8, 8], "s": [1]}, inferred_batch=2)
    assert build_plan(TrtSettings(), attrs, None).profiles["x"].opt == (2, 3, 8, 8)
    assert build_plan(TrtSettings(batch_size=16), attrs, None).profiles["x"].max == (16, 3, 8, 8)


def test_profile_command(model: Path) -> None:
    settings, plan = _plan(model, fp16=True)
    profiler = ProfilerSettings(iterations=50, hide_non_compute=True)
    command = profile_command(settings, profiler, plan, "m.onnx", "/out/m")
    for flag in ("--onnx=m.onnx", "--fp16", "--iterations=50", "--duration=0", "--noDataTransfers"):
        assert flag in command.argv
    assert "--exportProfile=/out/m.profile.json" in command.argv
    assert "--exportLayerInfo=/out/m.graph.json" in command.argv
    assert "--profilingVerbosity=detailed" in command.argv
    prebuilt = profile_command(settings, ProfilerSettings(prebuilt_engine="/e/m.engine"), None, "m.onnx", "/o/m")
    assert prebuilt.argv[1] == "--loadEngine=/e/m.engine" and "--fp16" not in prebuilt.argv


def test_keywords_exist_in_polygraphy() -> None:
    """Every keyword a plan can hold is a real parameter of the Polygraphy loader it is passed to."""
    from polygraphy.backend.trt import (
        Calibrator,
        CreateConfig,
        EngineFromNetwork,
        LoadPlugins,
        NetworkFromOnnxPath,
        Profile,
        SetLayerPrecisions,
    )

    def params(function: object) -> set[str]:
        return set(inspect.signature(function).parameters)  # type: ignore[arg-type]

    every = {
        "typing": "obey",
        "fp16": True,
        "bf16": True,
        "int8": True,
        "calibration_cache": "c",
        "workspace_mib": 1,
        "hardware_compatible": True,
        "max_aux_streams": 1,
    }
    attrs = ModelTrtAttributes(inputs={"x": ["N"]}, inferred_batch=1, precisions={"a": "fp16"})
    plan = build_plan(TrtSettings(**every), attrs, "/t.cache")  # type: ignore[arg-type]
    config_params = params(CreateConfig.__init__) | params(CreateConfig.__mro__[1].__init__)
    assert set(plan.config) | {"profiles", "calibrator"} <= config_params
    assert set(plan.network) <= params(NetworkFromOnnxPath.__init__)
    assert set(plan.engine) <= params(EngineFromNetwork.__init__)
    assert {"name", "min", "opt", "max"} <= params(Profile.add)
    assert {"network", "layer_precisions"} <= params(SetLayerPrecisions.__init__)
    assert "plugins" in params(LoadPlugins.__init__)
    assert {"data_loader", "cache"} <= params(Calibrator)
