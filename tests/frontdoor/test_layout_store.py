"""Named layouts in the JupyterLab settings file (frontdoor/layout_store.py): kept beside the user's other settings
(comments and all), replaced in place under the same name, deleted, and every bad entry or name refused saying what,
why and how to fix it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dld_jupyter.formats.lab_settings import lab_settings_path
from dld_jupyter.frontdoor.layout_store import (
    DEFAULT,
    LayoutError,
    PanelLayout,
    delete_layout,
    get_layout,
    load_layouts,
    save_layout,
)

SHELL = {"left": {"collapsed": False, "current": "dld-jupyter-sidebar", "width": 310},
         "right": {"collapsed": True, "current": None}}


def test_layouts_live_beside_the_other_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "settings"))
    file = lab_settings_path()
    assert file == tmp_path / "settings" / "dld-jupyter" / "plugin.jupyterlab-settings"
    file.parent.mkdir(parents=True)
    file.write_text('{\n  // typed by the user\n  "colorScheme": "okabe-ito",\n}\n')
    assert load_layouts() == {}
    wide = PanelLayout(side="right", size=620, shown=True, tab="initializers", shell=SHELL)
    save_layout("  Wide editors ", wide)
    save_layout("Below", PanelLayout(side="bottom", size=300, shown=False, tab="tensor"))
    data = json.loads(file.read_text())
    assert data["colorScheme"] == "okabe-ito", "the user's other settings are kept"
    assert data["layouts"][0] == {"name": "Wide editors", "dock": {"side": "right", "size": 620, "shown": True,
                                  "tab": "initializers"}, "shell": SHELL}
    assert list(load_layouts()) == ["Wide editors", "Below"]
    assert get_layout("Wide editors") == wide and get_layout("Wide editors").shell == SHELL
    save_layout("Wide editors", DEFAULT)  # replaced in its place
    assert list(load_layouts()) == ["Wide editors", "Below"] and get_layout("Wide editors") == DEFAULT
    delete_layout("Below")
    assert list(load_layouts()) == ["Wide editors"]
    assert not list(file.parent.glob("*.tmp")), "written atomically: no temporary file left"


def test_bad_layouts_and_names_are_refused_with_the_fix(tmp_path: Path) -> None:
    file = tmp_path / "plugin.jupyterlab-settings"
    with pytest.raises(LayoutError, match=r"no layout is named 'Nope' \(saved: none yet\).*Save one first"):
        get_layout("Nope", file)
    with pytest.raises(LayoutError, match="has no name"):
        save_layout("   ", DEFAULT, file)
    with pytest.raises(LayoutError, match="control characters"):
        save_layout("a\x1b[31mred", DEFAULT, file)
    with pytest.raises(LayoutError, match="side 'left' is not one of right, bottom"):
        PanelLayout(side="left")
    with pytest.raises(LayoutError, match="size 20 is not a whole number of px in 160–4000"):
        PanelLayout(size=20)
    with pytest.raises(LayoutError, match="the shell has no side bar 'top'"):
        PanelLayout(shell={"top": {"collapsed": True}})
    with pytest.raises(LayoutError, match="has a wrong value"):
        PanelLayout(shell={"left": {"collapsed": "yes"}})
    with pytest.raises(LayoutError, match=r"has a wrong value.*width 50–4000 px"):
        PanelLayout(shell={"left": {"collapsed": False, "width": 10}})
    file.write_text(json.dumps({"layouts": [{"name": "x", "dock": {"side": "up"}}]}))
    with pytest.raises(LayoutError, match=r"Layout 'x': side 'up'.*Settings Editor"):
        load_layouts(file)
    file.write_text(json.dumps({"layouts": [{"dock": {}}]}))
    with pytest.raises(LayoutError, match="has no name"):
        load_layouts(file)
    file.write_text("{ not json")
    with pytest.raises(LayoutError, match="is not valid settings JSON"):
        save_layout("a", DEFAULT, file)
    assert file.read_text() == "{ not json", "a broken file is never overwritten"


def test_what_python_writes_is_valid_for_the_lab(tmp_path: Path) -> None:
    """JupyterLab validates the user settings against the plugin's schema: a layout Python writes must pass it."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "js" / "schema" / "plugin.json").read_text())
    file = tmp_path / "plugin.jupyterlab-settings"
    save_layout("Wide editors", PanelLayout(side="bottom", size=300, shown=False, tab="tensor", shell=SHELL), file)
    save_layout("Plain", DEFAULT, file)
    jsonschema.validate(json.loads(file.read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):  # and the schema is no blank cheque
        jsonschema.validate({"layouts": [{"name": "x", "dock": {"side": "left"}}]}, schema)
