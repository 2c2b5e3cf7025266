"""The Tools menu of a designer: Global Model Modifications (seed 000: Convert Model to FP16, Sanitize Graph,
Convert Tensors, each with what it does), Custom Tools, and User Tools (the saved tools, each a button that runs
it on this model). Choosing one replaces the menu with that dialog in the Designer's tools slot.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.formats.html_text import small
from dld_jupyter.frontdoor.tools import CONVERT_FP16, CONVERT_TENSORS, MANAGE_USER_TOOLS, RUN_TOOL, SANITIZE_GRAPH
from dld_jupyter.usertools import ToolError, load_tools
from dld_jupyter.widgets.tools.job import error_html
from dld_jupyter.widgets.widget_base import DldVBox

MODIFICATIONS = (
    (CONVERT_FP16, "random", "Half the weight size: float32 weights and tensors become float16 (Polygraphy)."),
    (SANITIZE_GRAPH, "magic", "Fold constants and remove unused nodes (Polygraphy sanitize)."),
    (CONVERT_TENSORS, "exchange", "Convert chosen initializers and node attributes to one data type."),
)


class ToolsMenu(DldVBox, css="dld-tool-dialog dld-tools-menu"):
    def __init__(self, target: Any) -> None:
        self.target = target
        rows: list[w.Widget] = []
        for operation, icon, text in MODIFICATIONS:
            button = w.Button(description=operation.label, icon=icon, tooltip=operation.caption,
                              layout=w.Layout(width="220px"))
            button.add_class(f"dld-tools-{operation.name.replace('_', '-')}")
            button.on_click(lambda _b, op=operation: self._open(op))
            rows.append(w.HBox([button, w.HTML(small(text))]))
        manage = w.Button(description=MANAGE_USER_TOOLS.label, icon="wrench", tooltip=MANAGE_USER_TOOLS.caption,
                          layout=w.Layout(width="220px"))
        manage.add_class("dld-tools-custom-tools")
        manage.on_click(lambda _b: self._open(MANAGE_USER_TOOLS))
        close = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        close.on_click(lambda _b: self.close())
        super().__init__([w.HTML("<b>Global Model Modifications</b>"), *rows, w.HTML("<b>User Tools</b>"),
                          self._user_tools(), manage, close],
                         layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"))

    def _user_tools(self) -> w.Widget:
        try:
            tools = load_tools()
        except ToolError as problem:
            return w.HTML(error_html(str(problem)))
        if not tools:
            return w.HTML("<small>No user tools yet: Custom Tools creates one.</small>")
        buttons = []
        for tool in tools:
            button = w.Button(description=tool.name, icon="play", tooltip=f"{RUN_TOOL.caption}: {tool.application}",
                              layout=w.Layout(width="auto"))
            button.add_class("dld-tools-user-tool")
            button.on_click(lambda _b, name=tool.name: self._open(RUN_TOOL, tool=name))
            buttons.append(button)
        return w.HBox(buttons, layout=w.Layout(flex_flow="row wrap"))

    def _open(self, operation: Any, **args: Any) -> None:
        operation(self.target, **args)
