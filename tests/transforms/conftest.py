"""A small saved ResNet-like model for the transform tests, and a clean clipboard for each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import onnx
import pytest

from dld_jupyter.transforms import clipboard
from tests.models import resnet_like


@pytest.fixture
def resnet(tmp_path: Path) -> Path:
    path = tmp_path / "resnet_x.onnx"
    onnx.save(resnet_like(), path)
    return path


@pytest.fixture(autouse=True)
def empty_clipboard(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(clipboard, "_clip", None)
    yield
