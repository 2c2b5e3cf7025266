"""The Designer's Profile button and API: the panel opens below the canvas; a model that cannot run says why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.designer.profile_panel import ProfilePanel


def test_profile_panel_opens_in_the_dock_and_its_report_below(tmp_path: Path) -> None:
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx")
    designer.side_dock.show(False)
    panel = designer.profile_panel(iterations=7)
    assert isinstance(panel, ProfilePanel)
    assert list(designer.profiling.children) == [panel]
    assert designer.profiling in designer.side_dock.dock.children, "the Profile panel sits in the side dock"
    assert designer.side_dock.shown, "opening a panel shows the collapsed dock"
    assert panel.report_area not in panel.children and designer.reports.children == (panel.report_area,)
    assert designer.children.index(designer.reports) == designer.children.index(designer.side_dock.body) + 1


def test_profile_of_the_edited_model(tmp_path: Path) -> None:
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx")
    report = designer.profile(iterations=5, warmup=1)
    assert report.summary.passes == 5 and report.layers
    designer.document.add_node("Relu")  # dangling: ONNX Runtime refuses the model
    with pytest.raises(SpecError, match="input size 0"):
        designer.profile(iterations=5, warmup=1)
    assert designer.document.dirty  # profiling a copy never saves over the user's file
