"""The kernel side of the warm spare kernel (dld_jupyter/lab/spare_kernel.py) and the open phases a designer tab's
kernel keeps for benchmarks/open_time_bench.py (activities/timing.recent)."""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

import pytest

from dld_jupyter.activities import timing
from dld_jupyter.document.operators import schema
from dld_jupyter.lab import spare_kernel
from dld_jupyter.models import SAMPLE_MODEL


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A spare that has not warmed yet, started in `tmp_path` (the server's root)."""
    monkeypatch.setattr(spare_kernel, "_root", None)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_warm_imports_what_a_tab_needs_and_adopt_moves_to_the_tabs_folder(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fresh / "models" / "deep").mkdir(parents=True)
    unbuilt = schema.SchemaRegistry()
    monkeypatch.setattr(schema, "registry", unbuilt)
    spare_kernel.warm()
    for name in spare_kernel.WARM_MODULES:
        assert name in sys.modules
    assert unbuilt._by_key is not None, "the operator schemas are built"
    assert spare_kernel.adopt("models/deep") is True
    assert Path.cwd() == fresh / "models" / "deep"
    spare_kernel.warm()  # warmed again (a second warm call) it keeps the root it started in
    spare_kernel.adopt("")
    assert Path.cwd() == fresh


def test_a_kernel_that_does_not_see_the_folder_stays_where_it_is(fresh: Path) -> None:
    spare_kernel.warm()
    assert spare_kernel.adopt("gone") is False  # a remote kernel: the tab sends it the file
    assert Path.cwd() == fresh


def test_a_designers_open_leaves_its_phases_in_recent() -> None:
    designer = importlib.import_module("dld_jupyter.widgets.designer.designer")
    before = time.time()
    designer.open_designer(str(SAMPLE_MODEL))
    phases = {name: (start, seconds) for name, start, seconds in timing.recent() if start >= before - 0.001}
    assert set(phases) >= {"open_read", "open_view"}
    read_start, read_s = phases["open_read"]
    view_start, view_s = phases["open_view"]
    assert read_start <= view_start and read_s >= 0 and view_s > 0
    assert view_start + view_s <= time.time()
