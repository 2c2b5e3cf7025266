from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities import ActivityFailed, SpecError, UnavailableError, profile
from dld_jupyter.activities.result import Progress


def test_profile_a_path_returns_the_report(resnet_path: Path) -> None:
    seen: list[Progress] = []
    report = profile(resnet_path, iterations=3, warmup=0, threads=1, on_progress=seen.append)
    assert report.summary.passes == 3 and report.layers
    assert resnet_path.with_name("resnet.dld-report.json").is_file()
    assert seen and seen[-1].fraction == 1.0


# A document (clean, dirty, kept copy) and its temporary copy: tests/activities/test_model_ref.py.


def test_errors_are_typed(resnet_path: Path, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="unknown option"):
        profile(resnet_path, iteratons=3)
    with pytest.raises(UnavailableError, match="backend 'openvino'"):
        profile(resnet_path, backend="openvino")
    with pytest.raises(SpecError, match=r"unknown option\(s\) \['threads'\]"):
        profile(resnet_path, backend="tensorrt", threads=2)
    with pytest.raises(SpecError, match="does not exist"):
        profile(tmp_path / "missing.onnx")
    with pytest.raises(SpecError, match="expected a model path"):
        profile(42)
    try:
        profile(resnet_path, provider="cuda", iterations=1)
    except UnavailableError as error:
        assert "CPUExecutionProvider" in str(error)
    except ActivityFailed:  # pragma: no cover - a GPU host whose CUDA provider fails
        pass
