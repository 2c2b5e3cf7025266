"""The user's JupyterLab settings file of the `dld-jupyter:plugin`, read and written from Python, so the Lab (its
menus, the Settings Editor) and Python sessions share one store: the user tools (usertools/lab_settings.py) and the
named layouts of the designer's panels (frontdoor/layout_store.py) each own one entry of it.

JupyterLab keeps a plugin's user settings in `<settings dir>/dld-jupyter/plugin.jupyterlab-settings`, the settings
dir being `$JUPYTERLAB_SETTINGS_DIR`, else `<Jupyter config dir>/lab/user-settings` (`$JUPYTER_CONFIG_DIR`, else
`~/.jupyter`): the rule jupyterlab's own `get_user_settings_dir` follows, repeated here because these layers import
no Jupyter package. The file is JSON that may carry `//` and `/* */` comments and trailing commas (the Settings
Editor keeps what the user typed); reading strips them, writing replaces one entry, keeps the other settings, and
is atomic (atomic_write.py). A running Lab does not watch the file: it reads it again when a menu that lists such
an entry opens (js/src/lab/tools_menu.ts, js/src/lab/layouts_menu.ts).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from typing import Any

from dld_jupyter.formats.atomic_write import atomic_write_text

PLUGIN_FOLDER = "dld-jupyter"
PLUGIN_FILE = "plugin.jupyterlab-settings"
_COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMAS = re.compile(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])')


class LabSettingsError(ValueError):
    """The settings file cannot be read as settings; the message says which file and why (the fix, for whoever
    catches it: correct the file in the Settings Editor)."""


def settings_dir() -> pathlib.Path:
    explicit = os.environ.get("JUPYTERLAB_SETTINGS_DIR")
    if explicit:
        return pathlib.Path(explicit)
    config = os.environ.get("JUPYTER_CONFIG_DIR") or pathlib.Path.home() / ".jupyter"
    return pathlib.Path(config) / "lab" / "user-settings"


def lab_settings_path() -> pathlib.Path:
    return settings_dir() / PLUGIN_FOLDER / PLUGIN_FILE


def read_settings(file: pathlib.Path) -> dict[str, Any]:
    """The settings as an object ({} when the file does not exist yet)."""
    if not file.is_file():
        return {}
    text = file.read_text(encoding="utf-8")
    plain = _COMMENTS.sub(lambda m: m.group(1) or "", text)
    plain = _TRAILING_COMMAS.sub(lambda m: m.group(1) or m.group(2), plain)
    try:
        data = json.loads(plain) if plain.strip() else {}
    except json.JSONDecodeError as error:
        raise LabSettingsError(f"{file} is not valid settings JSON ({error}).") from None
    if not isinstance(data, dict):
        raise LabSettingsError(f"{file} does not hold an object.")
    return data


def write_setting(file: pathlib.Path, key: str, value: Any) -> pathlib.Path:
    """Replace the entry `key` (JSON-able `value`), keeping every other setting; atomic."""
    data = read_settings(file)
    data[key] = value
    file.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(file, json.dumps(data, indent=4))
