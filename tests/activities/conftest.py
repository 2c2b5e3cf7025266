"""Shared fixtures: a private cache dir for every test, and the shared test models saved to disk."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from tests import models


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("DLD_CACHE_DIR", str(path))  # workers inherit it: nothing lands in ~/.config
    return path


def save(model: onnx.ModelProto, folder: Path, name: str) -> Path:
    path = folder / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


@pytest.fixture
def resnet_path(tmp_path: Path) -> Path:
    return save(models.resnet_like(blocks=2), tmp_path, "resnet")


@pytest.fixture
def transformer_path(tmp_path: Path) -> Path:
    return save(models.transformer_like(layers=2), tmp_path, "transformer")
