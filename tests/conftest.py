"""Shared test setup: the repository root is importable, so tests use ``from tests.models import ...``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests run last: their JupyterLab server and Chromium live until the session ends, and the
    fast kernel-side tests should not share the two cores with them."""
    items.sort(key=lambda item: "tests/browser/" in str(item.path).replace("\\", "/"))


@pytest.fixture
def mobilenet_designer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A Designer on a copy of the real MobileNetV3 export (tests/data/real), a private cache; any analysis it
    launched is stopped after the test (analysis mode tests: tests/widgets, tests/lab)."""
    from dld_jupyter.widgets.designer.designer import open_designer

    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "model.onnx"
    shutil.copy(Path(__file__).parent / "data" / "real" / "mobilenet_v3_small_w05.onnx", path)
    designer = open_designer(path)
    yield designer
    designer.stop_analysis()
    designer.close()
