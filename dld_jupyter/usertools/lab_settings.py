"""User tools in the user's JupyterLab settings (the `userTools` entry of the `dld-jupyter:plugin` settings), so the
Lab's Tools menu, the Settings Editor, the Designer's dialogs and Python scripts share one list.

JupyterLab keeps a plugin's user settings in `<settings dir>/dld-jupyter/plugin.jupyterlab-settings`, the settings
dir being `$JUPYTERLAB_SETTINGS_DIR`, else `<Jupyter config dir>/lab/user-settings` (`$JUPYTER_CONFIG_DIR`, else
`~/.jupyter`): the rule jupyterlab's own `get_user_settings_dir` follows, repeated here because this layer imports
no Jupyter package. The file is JSON that may carry `//` and `/* */` comments (the Settings Editor keeps what the
user typed); reading strips them, writing replaces only `userTools`, keeps the other settings, and is atomic.
A running Lab reads the file again when its Tools menu opens (js/src/lab/tools_menu.ts).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from collections.abc import Iterable
from typing import Any

from dld_jupyter.formats.atomic_write import atomic_write_text
from dld_jupyter.usertools.tool import ToolError, UserTool, tools_from_json

PLUGIN_FOLDER = "dld-jupyter"
PLUGIN_FILE = "plugin.jupyterlab-settings"
KEY = "userTools"
_COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])')


def settings_dir() -> pathlib.Path:
    explicit = os.environ.get("JUPYTERLAB_SETTINGS_DIR")
    if explicit:
        return pathlib.Path(explicit)
    config = os.environ.get("JUPYTER_CONFIG_DIR") or pathlib.Path.home() / ".jupyter"
    return pathlib.Path(config) / "lab" / "user-settings"


def lab_settings_path() -> pathlib.Path:
    return settings_dir() / PLUGIN_FOLDER / PLUGIN_FILE


def _read(file: pathlib.Path) -> dict[str, Any]:
    if not file.is_file():
        return {}
    text = file.read_text(encoding="utf-8")
    plain = _COMMENTS.sub(lambda m: m.group(1) or "", text)
    plain = _TRAILING_COMMAS.sub(lambda m: m.group(1) or m.group(2), plain)
    try:
        data = json.loads(plain) if plain.strip() else {}
    except json.JSONDecodeError as error:
        raise ToolError(
            "Read user tools", f"{file} is not valid settings JSON ({error}).", "Fix it in the Settings Editor."
        ) from None
    if not isinstance(data, dict):
        raise ToolError("Read user tools", f"{file} does not hold an object.", "Fix it in the Settings Editor.")
    return data


def load_lab_tools(file: pathlib.Path | None = None) -> list[UserTool]:
    """The tools of the JupyterLab settings (none when the file or the entry does not exist yet)."""
    data = _read(file or lab_settings_path())
    return tools_from_json(json.dumps(data.get(KEY, [])))


def save_lab_tools(tools: Iterable[UserTool], file: pathlib.Path | None = None) -> pathlib.Path:
    """Replace the `userTools` entry (names checked unique first), keeping every other setting."""
    target = file or lab_settings_path()
    tools = list(tools)
    tools_from_json(json.dumps([t.to_json() for t in tools]))
    data = _read(target)
    data[KEY] = [t.to_json() for t in tools]
    target.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(target, json.dumps(data, indent=4))
