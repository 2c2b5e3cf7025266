"""The Tools dialogs of a designer (seed 000 "Batch Modifications", "User Tools"): Global Model Modifications,
Convert Model to FP16, Sanitize Graph, Convert Tensors, Custom Tools and a user tool's run. Each is an ipywidgets
form shown in the Designer's tools slot, reached through the `frontdoor.tools` operations.

`open_tool(target, kind, **settings)` builds the dialog of that kind; `kind` is one of `frontdoor.tools.KINDS`.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.frontdoor.operations import MANAGE_CONNECTIONS_KIND, SWEEP_KIND, OperationUnavailable
from dld_jupyter.frontdoor.tools import CUSTOM_TOOLS, FP16, MENU, RUN_USER_TOOL, SANITIZE, TENSORS, HasTools


def open_tool(target: Any, kind: str, **settings: Any) -> w.Widget:
    """The dialog `kind` for `target` (follow-up dialogs, the menu's choices and Custom Tools' Run, go through the
    target's `tools_panel` so they take this one's place)."""
    if kind == MENU:
        from dld_jupyter.widgets.tools.menu import ToolsMenu

        return ToolsMenu(target)
    if kind == FP16:
        from dld_jupyter.widgets.tools.fp16_dialog import Fp16Dialog

        return Fp16Dialog(target, **settings)
    if kind == SANITIZE:
        from dld_jupyter.widgets.tools.sanitize_dialog import SanitizeDialog

        return SanitizeDialog(target, **settings)
    if kind == TENSORS:
        from dld_jupyter.widgets.tools.tensors_dialog import TensorsDialog

        return TensorsDialog(target, **settings)
    if kind == CUSTOM_TOOLS:
        from dld_jupyter.widgets.tools.custom_tools import CustomToolsDialog

        def run(tool: Any) -> None:
            if isinstance(target, HasTools):
                target.tools_panel(RUN_USER_TOOL, tool=tool)

        return CustomToolsDialog(target, on_run=run, **settings)
    if kind == RUN_USER_TOOL:
        return _run_dialog(target, **settings)
    if kind == MANAGE_CONNECTIONS_KIND:  # not a tool, but a dialog of the same dock (frontdoor.operations)
        from dld_jupyter.widgets.runs.connections import ConnectionsPanel

        return ConnectionsPanel(**settings)
    if kind == SWEEP_KIND:  # a run form in the same dock, on the model's saved file
        from dld_jupyter.widgets.sweep.sweep_form import sweep_form

        return sweep_form(target, **settings)
    raise OperationUnavailable(f"no tool dialog {kind!r}")


def _run_dialog(target: Any, tool: Any = None, **settings: Any) -> w.Widget:
    from dld_jupyter.usertools import UserTool, load_tools
    from dld_jupyter.widgets.tools.tool_run import ToolRunDialog

    if not isinstance(tool, UserTool):
        tools = load_tools()
        found = next((t for t in tools if t.name == tool), None)
        if found is None:
            known = ", ".join(t.name for t in tools) or "none yet: Tools → Custom Tools creates one"
            raise OperationUnavailable(f"Run a user tool: no user tool named {tool!r} (user tools: {known}).")
        tool = found
    return ToolRunDialog(target, tool, **settings)


__all__ = ["open_tool"]
