"""Custom user tools (seed 000 "User Tools"): an external program run on the focused model, `$Model` and `$Output`
in its arguments, its output model opened afterwards if asked.

Its own package, not a transform: a user tool does not edit the document (it reads a saved file and may write a
new one), so it has no plan and no undo step; it sits beside `transforms/` below the front doors, imports no
Jupyter package, and borrows only the cancel token of `transforms.progress`. `tool` holds the definition, its
validation and its JSON form, `lab_settings` the `userTools` entry of the user's JupyterLab settings (where
`store` keeps them unless `$DLD_CONFIG_DIR` names a folder), `runner` the process: an argv list (never a shell),
output streamed line by line, Cancel ending the whole process group.
"""

from __future__ import annotations

from dld_jupyter.usertools.lab_settings import lab_settings_path, load_lab_tools, save_lab_tools
from dld_jupyter.usertools.runner import ToolRun, run_tool
from dld_jupyter.usertools.store import config_path, load_tools, save_tools
from dld_jupyter.usertools.tool import (
    MODEL,
    OUTPUT,
    ToolError,
    UserTool,
    tools_from_json,
    tools_to_json,
    validate_tools,
)

__all__ = [
    "MODEL",
    "OUTPUT",
    "ToolError",
    "ToolRun",
    "UserTool",
    "config_path",
    "lab_settings_path",
    "load_lab_tools",
    "load_tools",
    "run_tool",
    "save_lab_tools",
    "save_tools",
    "tools_from_json",
    "tools_to_json",
    "validate_tools",
]
