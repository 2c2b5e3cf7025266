"""The backend registry: ONNX Runtime is registered for its spec kind, lookups fail with the known names."""

from __future__ import annotations

import dataclasses

import pytest

from dld_jupyter.activities import ActivitySpec, OrtProfileSpec
from dld_jupyter.activities.backends import backend_for, backend_named, backend_names, register_backend
from dld_jupyter.activities.backends.onnxruntime import OnnxRuntimeBackend
from dld_jupyter.activities.errors import UnavailableError


@dataclasses.dataclass(frozen=True)
class _OtherSpec(ActivitySpec):
    KIND = "test-other-kind"

    def report_path(self) -> str:
        return "r.json"

    def resolved(self) -> _OtherSpec:
        return self

    def with_output(self, output: str) -> _OtherSpec:
        return self


def test_onnxruntime_is_the_backend_of_its_spec() -> None:
    backend = backend_for(OrtProfileSpec(model="m.onnx"))
    assert isinstance(backend, OnnxRuntimeBackend) and backend.name == "onnxruntime"
    assert backend_named("onnxruntime") is backend and "onnxruntime" in backend_names()
    assert backend.available() is None  # onnxruntime is installed in the test environment


def test_missing_backend_says_what_exists() -> None:
    with pytest.raises(UnavailableError, match=r"backend 'openvino' is not available; available: \['onnxruntime'"):
        backend_named("openvino")
    with pytest.raises(UnavailableError, match=r"no backend runs 'test-other-kind'"):
        backend_for(_OtherSpec(model="m.onnx"))


def test_second_backend_for_a_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="one backend per name and per spec kind"):
        register_backend(OnnxRuntimeBackend())


def test_unavailable_reason_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert OnnxRuntimeBackend().available() == (
        "onnxruntime is not installed: pip install onnxruntime (or onnxruntime-gpu for the CUDA provider)"
    )
