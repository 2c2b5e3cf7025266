"""`designer.layouts` (widgets/designer/layouts.py) and the layout operations the JupyterLab View menu sends: save
an arrangement, move the dock below and resize it, hide it, switch the editors' tab, apply the layout back (every
part returns, in the widgets the browser draws), reset to the default; a layout saved by one designer applies to
another; the dock moves between the two sides and back with its classes, sizes and heights right."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dld_jupyter.frontdoor.layout_store import LayoutError, load_layouts
from dld_jupyter.frontdoor.operations import operations
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer import dock
from dld_jupyter.widgets.designer.designer import open_designer

SHELL = {"left": {"collapsed": True, "current": None}}


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "settings"))
    monkeypatch.setattr(dock, "_SESSION", {"right": 380, "bottom": 260})  # the sizes later designers open with
    shutil.copy(SAMPLE_MODEL, tmp_path / "m.onnx")
    return tmp_path / "m.onnx"


def state(designer: object) -> tuple[object, ...]:
    dock = designer.side_dock  # type: ignore[attr-defined]
    size = dock.dock.layout.height if dock.side == "bottom" else dock.dock.layout.width
    bottom = "dld-dock-bottom" in dock.body._dom_classes
    return (dock.side, bottom, dock.splitter.bottom, size, dock.dock.layout.display, designer.editors.tab)  # type: ignore[attr-defined]


def test_save_move_apply_back_and_reset(model: Path) -> None:
    d = open_designer(model, height="500px")
    d.side_dock.resize(520)
    d.editors.tab = "initializers"
    saved = d.layouts.save("Wide editors")
    assert (saved.side, saved.size, saved.shown, saved.tab) == ("right", 520, True, "initializers")
    assert state(d) == ("right", False, False, "520px", None, "initializers")

    d.side_dock.move("bottom", 300)  # moved below, resized, hidden, another tab
    d.side_dock.show(False)
    d.editors.tab = "tensor"
    assert state(d) == ("bottom", True, True, "300px", "none", "tensor")
    assert d.side_dock.dock.layout.width == "100%" and d.side_dock.body.layout.height is None

    d.layouts.apply("Wide editors")
    assert state(d) == ("right", False, False, "520px", None, "initializers"), "every part returns"
    assert d.side_dock.body.layout.height == "500px", "beside the canvas the body is as high as it again"
    assert d.side_dock.dock.layout.height is None

    d.side_dock.resize(700)
    d.layouts.reset()
    assert state(d) == ("right", False, False, "380px", None, "parameters")
    assert d.layouts.names() == ["Wide editors"]
    other = open_designer(model)
    other.layouts.apply("Wide editors")
    assert state(other)[3:] == ("520px", None, "initializers"), "a layout applies to any designer"
    with pytest.raises(LayoutError, match=r"no layout is named 'Nope' \(saved: 'Wide editors'\)"):
        other.layouts.apply("Nope")
    d.layouts.delete("Wide editors")
    assert d.layouts.names() == []
    assert repr(d.layouts) == ("Layouts(saved=[], current=PanelLayout(side='right', size=380, shown=True, "
                               "tab='parameters', shell={}))")
    settings = Path(os.environ["JUPYTERLAB_SETTINGS_DIR"]) / "dld-jupyter" / "plugin.jupyterlab-settings"
    settings.write_text("{ broken")
    assert "saved=unreadable (" in repr(d.layouts), "a repr never raises"


def test_the_view_menu_operations(model: Path) -> None:
    d = open_designer(model)
    operations.run("dock_side", d, side="bottom")
    assert state(d)[:3] == ("bottom", True, True)
    operations.run("save_layout", d, name="Below", shell=SHELL)  # what the Lab's Save Layout… sends
    assert load_layouts()["Below"].shell == SHELL and load_layouts()["Below"].side == "bottom"
    operations.run("reset_layout", d)
    assert state(d)[:3] == ("right", False, False)
    operations.run("apply_layout", d, name="Below")
    assert state(d)[:3] == ("bottom", True, True)
    operations.run("delete_layout", d, name="Below")
    assert load_layouts() == {}
    with pytest.raises(LayoutError, match="no layout is named 'Below'"):
        operations.run("delete_layout", d, name="Below")
    with pytest.raises(LayoutError, match="has no name"):
        operations.run("save_layout", d, name="")
    with pytest.raises(ValueError, match="side 'left' is not one of right, bottom"):
        operations.run("dock_side", d, side="left")
    assert operations.get("dld:apply-layout").is_enabled(d)
