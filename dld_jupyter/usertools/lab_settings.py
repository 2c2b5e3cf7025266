"""User tools in the user's JupyterLab settings (the `userTools` entry of the `dld-jupyter:plugin` settings), so the
Lab's Tools menu, the Settings Editor, the Designer's dialogs and Python scripts share one list.

Where that file is, how its comments are read and how one entry is replaced atomically: formats/lab_settings.py
(the named layouts of the designer's panels share it). Writing replaces only `userTools`.
A running Lab reads the file again when its Tools menu opens (js/src/lab/tools_menu.ts).
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterable

from dld_jupyter.formats.lab_settings import (
    PLUGIN_FILE,
    LabSettingsError,
    lab_settings_path,
    read_settings,
    write_setting,
)
from dld_jupyter.usertools.tool import ToolError, UserTool, tools_from_json

__all__ = ["KEY", "PLUGIN_FILE", "lab_settings_path", "load_lab_tools", "save_lab_tools"]
KEY = "userTools"


def _read(file: pathlib.Path) -> dict[str, object]:
    try:
        return read_settings(file)
    except LabSettingsError as error:
        raise ToolError("Read user tools", str(error), "Fix it in the Settings Editor.") from None


def load_lab_tools(file: pathlib.Path | None = None) -> list[UserTool]:
    """The tools of the JupyterLab settings (none when the file or the entry does not exist yet)."""
    data = _read(file or lab_settings_path())
    return tools_from_json(json.dumps(data.get(KEY, [])))


def save_lab_tools(tools: Iterable[UserTool], file: pathlib.Path | None = None) -> pathlib.Path:
    """Replace the `userTools` entry (names checked unique first), keeping every other setting."""
    target = file or lab_settings_path()
    tools = list(tools)
    tools_from_json(json.dumps([t.to_json() for t in tools]))
    _read(target)  # a broken file is said as a user-tools error before anything is written
    return write_setting(target, KEY, [t.to_json() for t in tools])
