"""User tools kept in a JSON file of the user's config folder, so Python sessions and the CLI share them.

The file is `$DLD_CONFIG_DIR/user_tools.json`, else `$XDG_CONFIG_HOME/dld_jupyter/user_tools.json`, else
`~/.config/dld_jupyter/user_tools.json` (`%APPDATA%\\dld_jupyter` on Windows). It is written atomically (a
temporary file beside it, then a rename), so a crash never leaves half a list.
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
from collections.abc import Iterable

from dld_jupyter.usertools.tool import UserTool, tools_from_json, tools_to_json

FILE_NAME = "user_tools.json"


def config_path() -> pathlib.Path:
    explicit = os.environ.get("DLD_CONFIG_DIR")
    if explicit:
        return pathlib.Path(explicit) / FILE_NAME
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        base = pathlib.Path(os.environ["APPDATA"])
    else:
        base = pathlib.Path(os.environ.get("XDG_CONFIG_HOME") or pathlib.Path.home() / ".config")
    return base / "dld_jupyter" / FILE_NAME


def load_tools(path: pathlib.Path | None = None) -> list[UserTool]:
    """The saved tools; none when the file does not exist yet."""
    file = path or config_path()
    if not file.is_file():
        return []
    return tools_from_json(file.read_text(encoding="utf-8"))


def save_tools(tools: Iterable[UserTool], path: pathlib.Path | None = None) -> pathlib.Path:
    """Write the list (validated for unique names by reading it back) and return the file."""
    file = path or config_path()
    text = tools_to_json(tools)
    tools_from_json(text)
    file.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, file)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise
    return file
