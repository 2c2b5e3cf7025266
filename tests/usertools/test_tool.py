"""UserTool validation, JSON form (the JupyterLab settings' list) and the config-folder file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dld_jupyter.usertools import (
    ToolError,
    UserTool,
    config_path,
    load_tools,
    save_tools,
    tools_from_json,
    tools_to_json,
    validate_tools,
)


def test_validation() -> None:
    good = UserTool("Rename", sys.executable, ["script.py", "$Model", "$Output"], True, True)
    validate_tools([good, UserTool("python on PATH", "python3", [])])
    with pytest.raises(ToolError, match="another tool has this name"):
        validate_tools([good, UserTool(" rename ", sys.executable)])
    with pytest.raises(ToolError, match="no name"):
        validate_tools([UserTool("  ", sys.executable)])
    with pytest.raises(ToolError, match="not an executable file"):
        validate_tools([UserTool("x", "/no/such/program")])
    with pytest.raises(ToolError, match="no application"):
        validate_tools([UserTool("x", " ")])


def test_json_round_trip_and_refusals() -> None:
    tools = [UserTool("A", "/bin/true", ["$Model"], True, False), UserTool("B", "tool", [], False, True)]
    text = tools_to_json(tools)
    assert '"promptForOutput": true' in text and tools_from_json(text) == tools
    assert tools_from_json('[{"name": "C", "application": "x", "prompt_for_output": true}]')[0].prompt_for_output
    for bad, match in (
        ("{", "not JSON"),
        ("{}", "not a list"),
        ('[{"name": "a", "colour": 1}]', "unknown keys"),
        ('[{"name": "a", "arguments": "$Model"}]', "not a list of strings"),
        ('[{"name": "a"}, {"name": "A"}]', "names used twice"),
    ):
        with pytest.raises(ToolError, match=match):
            tools_from_json(bad)


def test_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "cfg"))
    assert config_path() == tmp_path / "cfg" / "user_tools.json" and load_tools() == []
    tools = [UserTool("A", "/bin/true", ["$Model"])]
    assert save_tools(tools) == config_path() and load_tools() == tools
    monkeypatch.delenv("DLD_CONFIG_DIR")
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "lab"))
    assert config_path() == tmp_path / "lab" / "dld-jupyter" / "plugin.jupyterlab-settings"
    with pytest.raises(ToolError):
        save_tools([UserTool("A", "x"), UserTool("a", "y")], tmp_path / "dup.json")
    assert not (tmp_path / "dup.json").exists()
