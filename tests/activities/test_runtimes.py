"""The runtime and kind registries: each spec names its runtime and its activity kind, lookups fail with the known
names, and a runtime is asked whether it can run WITH the spec's settings (no reach around the protocol)."""

from __future__ import annotations

import dataclasses

import pytest

from dld_jupyter.activities import ActivitySpec, OrtProfileSpec, TrtBuildSpec, TrtProfileSpec, TrtSettings
from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.activities.kinds import kind_runner
from dld_jupyter.activities.kinds.export_engine import run_export
from dld_jupyter.activities.kinds.session import serve
from dld_jupyter.activities.runtimes import register_runtime, runtime_for, runtime_named, runtime_names
from dld_jupyter.activities.runtimes.onnxruntime import OnnxRuntime
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec


@dataclasses.dataclass(frozen=True)
class _OtherSpec(ActivitySpec):
    KIND = "test-other-kind"

    def report_path(self) -> str:
        return "r.json"

    def resolved(self) -> _OtherSpec:
        return self

    def with_output(self, output: str) -> _OtherSpec:
        return self


def test_each_spec_names_its_runtime_and_kind() -> None:
    runtime = runtime_for(OrtProfileSpec(model="m.onnx"))
    assert isinstance(runtime, OnnxRuntime) and runtime.name == "onnxruntime"
    assert runtime_named("onnxruntime") is runtime and runtime_names() == ["onnxruntime", "tensorrt"]
    assert runtime.available() is None  # onnxruntime is installed in the test environment
    assert runtime_for(TrtProfileSpec(model="m.onnx")) is runtime_named("tensorrt")
    # One profile kind for both runtimes; engine export and sessions are kinds of their own.
    assert kind_runner(OrtProfileSpec(model="m.onnx")) is kind_runner(TrtProfileSpec(model="m.onnx"))
    assert kind_runner(TrtBuildSpec(model="m.onnx")) is run_export
    assert kind_runner(OrtSessionSpec(model="m.onnx")) is serve


def test_missing_runtime_or_kind_says_what_exists() -> None:
    with pytest.raises(UnavailableError, match=r"backend 'openvino' is not available; available: \['onnxruntime'"):
        runtime_named("openvino")
    with pytest.raises(UnavailableError, match=r"no runtime runs 'test-other-kind'"):
        runtime_for(_OtherSpec(model="m.onnx"))
    import re

    import dld_jupyter.model_compare.divergence_kind  # noqa: F401  (registers "diverge", as a worker does on demand)
    from dld_jupyter.activities.kinds import kind_names

    assert {"analysis", "diverge", "export_engine", "profile", "session"} <= set(kind_names())
    known = re.escape(str(kind_names()))
    with pytest.raises(UnavailableError, match=rf"no activity kind runs 'test-other-kind' specs here; kinds: {known}"):
        kind_runner(_OtherSpec(model="m.onnx"))


def test_second_runtime_of_a_name_is_refused() -> None:
    with pytest.raises(ValueError, match="one runtime per name"):
        register_runtime(OnnxRuntime())


def test_unavailable_reason_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert OnnxRuntime().available() == (
        "onnxruntime is not installed: pip install 'dld_jupyter[cpu]' (or 'dld_jupyter[gpu]' for the CUDA "
        "provider; never both)"
    )


def test_tensorrt_is_asked_with_the_specs_settings(tmp_path: object) -> None:
    """The answer depends on the settings: a trtexec source or an installation folder without TensorRT is named."""
    runtime = runtime_named("tensorrt")
    spec = TrtBuildSpec(model="m.onnx", settings=TrtSettings(tensorrt="trtexec", tensorrt_path="/usr/bin/trtexec"))
    assert "trtexec binary is not supported" in str(runtime.available(spec.runtime_settings()))
    folder = TrtSettings(tensorrt="path", tensorrt_path=str(tmp_path))
    assert runtime.available(folder) == (
        f"TensorRT is not installed in {tmp_path}: give the folder that holds the tensorrt package"
    )
    with pytest.raises(SpecError, match="TensorRT is asked with TrtSettings, not OrtProfileSpec"):
        runtime.available(OrtProfileSpec(model="m.onnx"))
