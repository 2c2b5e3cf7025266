"""The missing-CUDA-provider message names the real cause: which onnxruntime builds are installed."""

from __future__ import annotations

import pytest

from dld_jupyter.activities.runtimes.onnxruntime import install as ort_install


def _with(monkeypatch: pytest.MonkeyPatch, **versions: str | None) -> None:
    monkeypatch.setattr(ort_install, "installed", lambda name: versions.get(name.replace("-", "_")))


def test_both_builds_installed_is_named_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, onnxruntime="1.31.1", onnxruntime_gpu="1.31.1")
    text = ort_install.cuda_missing_reason("1.31.1", ["CPUExecutionProvider"])
    assert "both onnxruntime 1.31.1 (CPU) and onnxruntime-gpu 1.31.1 are installed" in text
    assert text.endswith(ort_install.SWITCH_TO_GPU)


def test_gpu_build_without_its_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, onnxruntime_gpu="1.31.1")
    text = ort_install.cuda_missing_reason("1.31.1", ["CPUExecutionProvider"])
    assert "onnxruntime-gpu 1.31.1 is installed but its CUDA provider did not load" in text and "cuDNN" in text


def test_cpu_build_only_says_how_to_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, onnxruntime="1.31.1")
    text = ort_install.cuda_missing_reason("1.31.1", ["CPUExecutionProvider"])
    assert "this is the CPU build of onnxruntime" in text and ort_install.SWITCH_TO_GPU in text


def test_the_installed_lookup_reads_real_metadata() -> None:
    assert ort_install.installed("onnxruntime") is not None or ort_install.installed("onnxruntime-gpu") is not None
    assert ort_install.installed("no-such-distribution-dld") is None
