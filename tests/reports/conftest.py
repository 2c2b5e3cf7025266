"""Fixtures for the report tests: the real trtexec samples, a synthetic report factory, a real ORT trace."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from dld_jupyter.report_format.model import Report
from tests.reports._factory import make_report

REPO = Path(__file__).resolve().parents[2]
COPY = REPO / "tests" / "data" / "trt"


def shared_samples() -> Path | None:
    """The shared sample folder: $DLD_TRT_SAMPLES, else shared/trt-samples beside the repository clone."""
    env = os.environ.get("DLD_TRT_SAMPLES")
    candidate = Path(env) if env else REPO.parent / "shared" / "trt-samples"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def trt_dir() -> Path:
    """Real trtexec outputs: the shared folder when present (it may hold more samples), else the copy in tests."""
    return shared_samples() or COPY


@pytest.fixture(scope="session")
def trt_prefix(trt_dir: Path) -> Path:
    return trt_dir / "tf-resnet50-rtx3090-fp16.engine"


@pytest.fixture
def report_factory() -> Callable[..., Report]:
    return make_report
