"""Local Function Settings (seed 000 "Local Functions"): the parameters of the local function a designer edits, one
row each (name, type, default) with "−" to remove it, and a form that adds one: a unique name, a type (undefined:
each instance passes a typed value, so no default) and, for the other types, a default written as the parameter
editor writes values (`3`, `0.5`, `[1, 2]`, `'text'`).

Shown in the function designer's tools slot; reached from its toolbar, the Lab command "Local Function Settings",
the parameter editor's "Edit Local Function Parameters" and `d.child_panel("function_settings")`. Each add or
remove is one undo step of the function document (confirmed into the model with Confirm Local Function Edits).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.document import DocumentError
from dld_jupyter.document.edits.literals import LiteralError
from dld_jupyter.formats.html_text import Html, bold, join, small, tag
from dld_jupyter.widgets.designer.document_panel import DocumentPanel
from dld_jupyter.widgets.editors.attribute_text import from_text, to_text

TYPES = ("undefined", "float", "int", "string", "tensor", "floats", "ints", "strings")
FS_ERROR = '<div class="dld-fs-error" style="color:#b91c1c;white-space:pre-wrap">{}</div>'
CELL = "display:inline-block;padding:2px 10px;border-bottom:1px solid var(--jp-border-color2,#ddd);width:{}px"


def parse_default(text: str, type_name: str) -> Any:
    """The default a text denotes for a parameter of `type_name`; None for undefined (or an empty text)."""
    kind = type_name.upper()
    if kind == "UNDEFINED":
        if text.strip():
            raise DocumentError(
                "Add parameter",
                "an undefined parameter has no default.",
                "Leave the default empty, or choose the parameter's type.",
            )
        return None
    if not text.strip():
        raise DocumentError(
            "Add parameter",
            f"a {type_name} parameter needs a default value.",
            "Type one (e.g. 1, 0.5, [1, 2], text), or choose the type undefined.",
        )
    return from_text(text if kind != "STRING" else text.strip().strip("'"), kind)


class FunctionSettings(DocumentPanel):
    REFUSED = (DocumentError, LiteralError, ValueError)
    ERROR = FS_ERROR

    def __init__(self, designer: Any) -> None:
        self.designer = designer
        self.document = designer.document
        self.table = w.VBox([])
        self.message = w.HTML()
        self.name = w.Text(placeholder="name", layout=w.Layout(width="160px"))
        self.type = w.Dropdown(options=TYPES, value="int", layout=w.Layout(width="120px"))
        self.default = w.Text(placeholder="default (e.g. 1, [1, 2])", layout=w.Layout(width="200px"))
        for widget, cls in ((self.name, "dld-fs-name"), (self.type, "dld-fs-type"), (self.default, "dld-fs-default")):
            widget.add_class(cls)
        self.type.observe(lambda _c: self._sync(), names="value")
        add = w.Button(description="+", tooltip="Add the parameter (one undo step)", layout=w.Layout(width="auto"))
        add.add_class("dld-fs-add")
        add.on_click(
            lambda _b: self._guard(lambda: self.add(self.name.value.strip(), self.type.value, self.default.value))
        )
        close = w.Button(description="Close", icon="times", layout=w.Layout(width="auto", align_self="flex-start"))
        close.on_click(lambda _b: self.close())
        header = w.HTML(join([
            bold("Local Function Settings"), " ", small(self.document.title),
            tag("div", small("Parameters of the function: operators inside reference them (Set Reference "
                             "Parameter); each instance passes a value or takes the default.")),
        ]))
        super().__init__(
            [header, self.table, w.HBox([self.name, self.type, self.default, add]), self.message, close],
            layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"),
        )
        self.add_class("dld-function-settings")
        self._follow(self.document, self.refresh)
        self._sync()
        self.refresh()

    def _sync(self) -> None:
        self.default.disabled = self.type.value == "undefined"
        if self.default.disabled:
            self.default.value = ""

    def refresh(self) -> None:
        rows: list[w.Widget] = []
        for p in self.document.parameters():
            default = "" if p.default is None else to_text(p.default, str(p.type).upper())
            text = join([
                tag("span", bold(p.name), style=CELL.format(240)),
                tag("span", str(p.type).lower(), style=CELL.format(90)),
                tag("span", default or Html("&nbsp;"), style=CELL.format(160)),
            ])
            remove = w.Button(description="−", tooltip=f"Remove parameter {p.name}", layout=w.Layout(width="32px"))
            remove.add_class("dld-fs-remove")
            remove.on_click(lambda _b, name=p.name: self._guard(lambda: self.remove(name)))
            row = w.HBox([w.HTML(text), remove])
            row.add_class("dld-fs-row")
            rows.append(row)
        if not rows:
            rows.append(w.HTML("<small>No parameters yet: add one below.</small>"))
        self.table.children = rows

    def add(self, name: str, type_name: str, default_text: str = "") -> None:
        default = parse_default(default_text, type_name)
        self.document.add_parameter(name, type_name.upper(), default)
        self.name.value = self.default.value = ""
        self.message.value = ""

    def remove(self, name: str) -> None:
        self.document.remove_parameter(name)
        self.message.value = ""
