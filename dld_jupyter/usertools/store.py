"""Where user tools are kept, so the JupyterLab menus, the Designer's dialogs, Python sessions and the CLI share them:
the user's JupyterLab settings (`userTools` of the dld-jupyter plugin, lab_settings.py), or, when
`$DLD_CONFIG_DIR` is set (scripts, CI, a machine without JupyterLab settings), `$DLD_CONFIG_DIR/user_tools.json`.
Both are written atomically (formats/atomic_write.py), so a crash never leaves half a list.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterable

from dld_jupyter.formats.atomic_write import atomic_write_text
from dld_jupyter.usertools.lab_settings import PLUGIN_FILE, lab_settings_path, load_lab_tools, save_lab_tools
from dld_jupyter.usertools.tool import UserTool, tools_from_json, tools_to_json

FILE_NAME = "user_tools.json"


def config_path() -> pathlib.Path:
    """The file the tools are kept in: `$DLD_CONFIG_DIR/user_tools.json`, else the JupyterLab settings file."""
    explicit = os.environ.get("DLD_CONFIG_DIR")
    if explicit:
        return pathlib.Path(explicit) / FILE_NAME
    return lab_settings_path()


def load_tools(path: pathlib.Path | None = None) -> list[UserTool]:
    """The saved tools; none when the file does not exist yet."""
    file = path or config_path()
    if file.name == PLUGIN_FILE:
        return load_lab_tools(file)
    if not file.is_file():
        return []
    return tools_from_json(file.read_text(encoding="utf-8"))


def save_tools(tools: Iterable[UserTool], path: pathlib.Path | None = None) -> pathlib.Path:
    """Write the list (validated for unique names by reading it back) and return the file."""
    file = path or config_path()
    if file.name == PLUGIN_FILE:
        return save_lab_tools(tools, file)
    text = tools_to_json(tools)
    tools_from_json(text)
    file.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(file, text)
