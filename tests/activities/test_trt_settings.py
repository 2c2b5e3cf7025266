"""TensorRT settings and the two TensorRT activity kinds: validation with named options, JSON round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dld_jupyter.activities import ProfilerSettings, SpecError, TrtBuildSpec, TrtProfileSpec, TrtSettings
from dld_jupyter.activities.spec import known_kinds, spec_from_json


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"int8": True, "fp8": True}, "INT8 and FP8 tactics are exclusive"),
        ({"typing": "loose"}, "settings.typing: 'loose' is not one of"),
        ({"optimization_level": 6}, r"settings.optimization_level: must be 0..5"),
        ({"max_aux_streams": -1}, "settings.max_aux_streams: must be 0 or more"),
        ({"workspace_mib": 0}, "settings.workspace_mib: must be 1 or more"),
        ({"batch_size": 0}, "settings.batch_size: must be 1 or more"),
        ({"refit": "yes"}, "settings.refit: 'yes' is not one of"),
        ({"calibration_cache": "c.cache"}, "turn int8 on"),
        ({"tensorrt": "conda"}, "settings.tensorrt: 'conda'"),
        ({"tensorrt": "trtexec"}, "give the trtexec binary"),
        ({"tensorrt": "path"}, "give the folder that holds the tensorrt package"),
        ({"tensorrt_path": "/opt/trt"}, 'only used with tensorrt "path" or "trtexec"'),
        ({"device": -1}, "settings.device: must be 0 or more"),
        ({"fp16": 1}, "settings.fp16: expected bool, got 1"),
        ({"optimization_level": True}, "settings.optimization_level: expected int, got True"),
        ({"plugins": ("",)}, "settings.plugins"),
    ],
)
def test_settings_refusals_name_the_option(options: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        TrtSettings(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"iterations": 0}, "profiler.iterations: must be at least 1"),
        ({"warmup": -1}, "profiler.warmup"),
        ({"sampling_ms": 0}, "profiler.sampling_ms"),
        ({"prebuilt_engine": ""}, "profiler.prebuilt_engine"),
        ({"hide_non_compute": "yes"}, "profiler.hide_non_compute: expected bool"),
    ],
)
def test_profiler_refusals(options: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        ProfilerSettings(**options)  # type: ignore[arg-type]


def test_kinds_are_registered_and_round_trip() -> None:
    assert {"tensorrt-build", "tensorrt-profile"} <= set(known_kinds())
    build = TrtBuildSpec(
        model="m.onnx",
        engine="m.engine",
        metadata="m.trt.json",
        open_metadata=True,
        settings=TrtSettings(fp16=True, plugins=("p.so",), refit="strip", workspace_mib=512),
    )
    profile = TrtProfileSpec(model="m.onnx", profiler=ProfilerSettings(iterations=5, hide_non_compute=True))
    for spec in (build, profile):
        again = spec_from_json(spec.to_json())
        assert again == spec and type(again) is type(spec)
    assert json.loads(build.to_json())["settings"]["plugins"] == ["p.so"]


def test_unknown_options_are_named() -> None:
    with pytest.raises(SpecError, match=r"settings: unknown option\(s\) \['fp64'\]"):
        spec_from_json(json.dumps({"kind": "tensorrt-build", "model": "m.onnx", "settings": {"fp64": True}}))
    with pytest.raises(SpecError, match=r"profiler: unknown option\(s\) \['passes'\]"):
        spec_from_json(json.dumps({"kind": "tensorrt-profile", "model": "m.onnx", "profiler": {"passes": 3}}))
    with pytest.raises(SpecError, match=r"spec: unknown option\(s\) \['profiler'\]"):
        spec_from_json(json.dumps({"kind": "tensorrt-build", "model": "m.onnx", "profiler": {}}))


def test_build_paths_and_metadata_rules(tmp_path: Path) -> None:
    spec = TrtBuildSpec(model=str(tmp_path / "net.onnx"))
    assert spec.engine_path() == str(tmp_path / "net.engine")
    assert spec.report_path() == str(tmp_path / "net.build.dld-report.json")
    resolved = spec.resolved()
    assert resolved.engine == str(tmp_path / "net.engine") and resolved.output is None  # an export writes no report
    assert resolved.output_paths() == {"engine": str(tmp_path / "net.engine"), "metadata": None}
    with pytest.raises(SpecError, match="open_metadata: needs a metadata output path"):
        TrtBuildSpec(model="m.onnx", open_metadata=True)
    with pytest.raises(SpecError, match=r"turn settings\.save_metadata on"):
        TrtBuildSpec(model="m.onnx", metadata="m.trt.json", settings=TrtSettings(save_metadata=False))


def test_profile_resolves_the_prebuilt_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = TrtProfileSpec(model="m.onnx", profiler=ProfilerSettings(prebuilt_engine="m.engine")).resolved()
    assert spec.profiler.prebuilt_engine == str(tmp_path / "m.engine")
    assert spec.report_path() == str(tmp_path / "m.dld-report.json")
