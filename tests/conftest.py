"""Shared test setup: the repository root is importable, so tests use ``from tests.models import ...``."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests run last: their JupyterLab server and Chromium live until the session ends, and the
    fast kernel-side tests should not share the two cores with them."""
    items.sort(key=lambda item: "tests/browser/" in str(item.path).replace("\\", "/"))
