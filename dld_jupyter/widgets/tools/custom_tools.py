"""Tools → Custom Tools (seed 000 "User Tools"): the list of user tools; selecting one shows its application and
arguments below; Create, Edit and Delete on the right. The form asks for the seed's fields: a unique name, the
application path, the arguments (one per line, each one argv entry: `$Model` and `$Output` are replaced, nothing
is split or quoted by a shell), "Prompt for model output" and "Automatically open model output".

The list lives in the user's JupyterLab settings (usertools/lab_settings.py through `load_tools` / `save_tools`),
so the Lab's Tools → User Tools menu and Python scripts see every change; a tool is validated (unique name, an
application that exists and can run) before it is saved, and the reason shows in the dialog.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.formats.html_text import bold, code, join, small, tag
from dld_jupyter.usertools import ToolError, UserTool, load_tools, save_tools
from dld_jupyter.usertools.tool import validate_tool
from dld_jupyter.widgets.tools.job import error_html
from dld_jupyter.widgets.widget_base import DldVBox

STYLE = {"description_width": "150px"}


class CustomToolsDialog(DldVBox, css="dld-tool-dialog dld-custom-tools"):
    def __init__(self, target: Any = None, store: Path | None = None,
                 on_run: Callable[[UserTool], object] | None = None) -> None:
        self.store = store
        self.on_run = on_run
        self.error = w.HTML("")
        try:
            self.tools = load_tools(store)
        except ToolError as problem:
            self.tools = []
            self.error.value = error_html(str(problem))
        self.listing = w.Select(options=[], rows=8, layout=w.Layout(width="320px"))
        self.listing.add_class("dld-tools-list")
        self.details = w.HTML("")
        self.details.add_class("dld-tools-details")
        self.listing.observe(lambda _c: self._show_details(), names="value")
        buttons = {
            "Create": ("plus", lambda: self.edit(None)),
            "Edit": ("pencil", lambda: self.edit(self.selected())),
            "Delete": ("trash", self.delete_selected),
            "Run": ("play", self.run_selected),
        }
        column = []
        for label, (icon, action) in buttons.items():
            button = w.Button(description=label, icon=icon, layout=w.Layout(width="100px"))
            button.add_class(f"dld-tools-{label.lower()}")
            button.on_click(lambda _b, act=action: act())
            column.append(button)
        self.form_area = w.VBox([])
        close = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        close.on_click(lambda _b: self.close())
        header = w.HTML("<b>Custom Tools</b> <small>stored in your JupyterLab settings (userTools)</small>")
        super().__init__([header, w.HBox([self.listing, w.VBox(column)]), self.details, self.error, self.form_area,
                          close], layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)",
                                                  padding="6px"))
        self._refresh()

    # -- list ------------------------------------------------------------------------------------------------
    def _refresh(self, select: str | None = None) -> None:
        names = [t.name for t in self.tools]
        self.listing.options = names
        self.listing.value = select if select in names else (names[0] if names else None)
        self._show_details()

    def selected(self) -> UserTool | None:
        return next((t for t in self.tools if t.name == self.listing.value), None)

    def _show_details(self) -> None:
        tool = self.selected()
        if tool is None:
            self.details.value = "<small>No user tool yet: Create one.</small>"
            return
        flags = [f for f, on in (("prompts for model output", tool.prompt_for_output),
                                 ("opens its model output", tool.open_output)) if on]
        args = " ".join(repr(a) for a in tool.arguments) or "(none)"
        br = tag("br")
        self.details.value = small(bold("Application:"), " ", code(tool.application), br,
                                   bold("Arguments:"), " ", code(args), br, join(flags, ", "))

    def _save(self, tools: list[UserTool], select: str | None) -> bool:
        try:
            save_tools(tools, self.store)
        except (ToolError, OSError) as problem:
            self.error.value = error_html(str(problem))
            return False
        self.tools = tools
        self.error.value = ""
        self._refresh(select)
        return True

    def delete_selected(self) -> None:
        tool = self.selected()
        if tool is not None:
            self._save([t for t in self.tools if t is not tool], None)

    def run_selected(self) -> None:
        tool = self.selected()
        if tool is not None and self.on_run is not None:
            self.on_run(tool)

    # -- create / edit ---------------------------------------------------------------------------------------
    def edit(self, tool: UserTool | None) -> None:
        """Show the form for a new tool (None) or for `tool`; Save validates and stores, Cancel drops it."""
        fields = {
            "name": w.Text(value=tool.name if tool else "", description="Name", style=STYLE),
            "application": w.Text(value=tool.application if tool else "", description="Application path",
                                  placeholder="/usr/bin/python3", style=STYLE, layout=w.Layout(width="560px")),
            "arguments": w.Textarea(value="\n".join(tool.arguments) if tool else "", description="Arguments",
                                    placeholder="one per line: script.py\n$Model\n$Output", style=STYLE,
                                    layout=w.Layout(width="560px", height="90px")),
            "prompt": w.Checkbox(value=tool.prompt_for_output if tool else False,
                                 description="Prompt for model output", indent=False),
            "open": w.Checkbox(value=tool.open_output if tool else False,
                               description="Automatically open model output", indent=False),
        }
        for key, field in fields.items():
            field.add_class(f"dld-tools-field-{key}")
        problem = w.HTML("")
        save = w.Button(description="Save", icon="check", button_style="primary", layout=w.Layout(width="auto"))
        save.add_class("dld-tools-save")
        cancel = w.Button(description="Cancel", layout=w.Layout(width="auto"))

        def commit() -> None:
            made = UserTool(fields["name"].value.strip(), fields["application"].value.strip(),
                            [a for a in fields["arguments"].value.splitlines() if a.strip()],
                            fields["prompt"].value, fields["open"].value)
            others = [t for t in self.tools if t is not tool]
            try:
                validate_tool(made, others)
            except ToolError as error:
                problem.value = error_html(str(error))
                return
            index = self.tools.index(tool) if tool is not None else len(self.tools)
            if self._save([*others[:index], made, *others[index:]], made.name):
                self.form_area.children = []

        save.on_click(lambda _b: commit())
        cancel.on_click(lambda _b: setattr(self.form_area, "children", []))
        title = f"Edit {tool.name}" if tool else "Create a user tool"
        self.form_area.children = [w.HTML(bold(title)), *fields.values(), problem,
                                   w.HBox([save, cancel])]
        self.form_area.add_class("dld-tools-form")
