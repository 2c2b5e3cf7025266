"""The designer's side dock (dock.py): the editors beside the canvas, a size kept for the session's next designer,
collapse and expand, a bottom dock, the canvas's height option giving the body its height, and a clear error for
an unknown side."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer.designer import open_designer


def test_editors_dock_beside_the_canvas_and_the_size_is_kept(tmp_path: Path) -> None:
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx", height="500px")
    dock = designer.side_dock
    assert dock.body.children == (designer.canvas, dock.splitter, dock.dock)
    assert designer.panels in dock.dock.children and designer.editors in designer.panels.children
    assert dock.body.layout.height == "500px", "in a cell the dock is as high as the canvas"
    designer.canvas.height = "420px"
    assert dock.body.layout.height == "420px"
    dock.splitter.size = 520  # what a drag of the splitter sets from the browser
    assert dock.dock.layout.width == "520px"
    dock.resize(40)
    assert dock.size == 160, "never narrower than the minimum"
    dock.resize(450)
    assert open_designer(tmp_path / "m.onnx").side_dock.dock.layout.width == "450px", "the next designer's width"
    dock.toggle.value = False
    assert dock.dock.layout.display == "none" and dock.splitter.layout.display == "none"
    dock._on_msg(dock.splitter, {"kind": "collapse"}, [])
    assert not dock.shown
    designer.tools_panel("global_modifications")
    assert dock.shown and dock.dock.layout.display is None, "a Tools dialog opens in the dock and shows it"


def test_bottom_dock_and_an_unknown_side(tmp_path: Path) -> None:
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx", dock="bottom")
    dock = designer.side_dock
    assert "dld-dock-bottom" in dock.body._dom_classes and dock.splitter.bottom
    assert dock.dock.layout.height == f"{dock.size}px" and dock.dock.layout.width == "100%"
    with pytest.raises(ValueError, match="side 'left' is not one of right, bottom"):
        open_designer(tmp_path / "m.onnx", dock="left")
