"""The Model Local Functions window (seed 000 "Local Functions"): every local function of the model, filtered by
name; the selected one opens in its own designer (↗) or is extracted to a standalone model (save); "+" creates one
from a name and a domain, "−" deletes one after a confirmation (its instances become custom operators).

Shown in the designer's tools slot; reached from the designer's Functions button, the Lab command
"Model Local Functions" and `d.child_panel("local_functions")`. It follows the document: a function created,
deleted or renamed elsewhere (an undo, Create Function from Selection) shows at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.document import DocumentError
from dld_jupyter.formats.html_text import bold, fill, join, small
from dld_jupyter.frontdoor.children import CREATE_FUNCTION, DELETE_FUNCTION, EXTRACT_FUNCTION, OPEN_FUNCTION
from dld_jupyter.frontdoor.operations import OperationUnavailable
from dld_jupyter.widgets.designer.document_panel import DocumentPanel

FN_ERROR = '<div class="dld-fn-error" style="color:#b91c1c;white-space:pre-wrap">{}</div>'
INFO = '<div class="dld-fn-info" style="color:#15803d">{}</div>'


def _button(label: str, icon: str, tip: str, cls: str) -> w.Button:
    b = w.Button(description=label, icon=icon, tooltip=tip, layout=w.Layout(width="auto"))
    b.add_class(cls)
    return b


class FunctionsPanel(DocumentPanel):
    REFUSED = (DocumentError, OperationUnavailable, ValueError, OSError)
    ERROR = FN_ERROR

    def __init__(self, designer: Any, filter: str = "") -> None:
        self.designer = designer
        self.document = designer.document
        self.filter = w.Text(value=filter, placeholder="Filter by name", layout=w.Layout(width="260px"))
        self.filter.add_class("dld-fn-filter")
        self.filter.observe(lambda _c: self.refresh(), names="value")
        self.list = w.Select(options=[], rows=8, layout=w.Layout(width="760px"))
        self.list.add_class("dld-fn-list")
        self.message = w.HTML()
        self.form = w.VBox([])
        open_b = _button("Open", "external-link", "Open the selected function in its own designer", "dld-fn-open")
        extract_b = _button("Extract", "save", "Extract the selected function to a standalone model", "dld-fn-extract")
        add_b = _button("+", "", "Create a local function (name, domain)", "dld-fn-add")
        remove_b = _button(
            "−", "", "Delete the selected function (its instances become custom operators)", "dld-fn-remove"
        )
        close_b = _button("Close", "times", "Close this window", "dld-fn-close")
        open_b.on_click(lambda _b: self._guard(self.open_selected))
        extract_b.on_click(lambda _b: self._guard(self._ask_extract))
        add_b.on_click(lambda _b: self._guard(self._ask_create))
        remove_b.on_click(lambda _b: self._guard(self._ask_delete))
        close_b.on_click(lambda _b: self.close())
        header = w.HTML(join([bold("Model Local Functions"), small(self.document.name)], " "))
        super().__init__(
            [
                header,
                w.HBox([self.filter, add_b, remove_b, open_b, extract_b, close_b]),
                self.list,
                self.form,
                self.message,
            ],
            layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"),
        )
        self.add_class("dld-functions-panel")
        self._follow(self.document, self.refresh)
        self.refresh()

    # ------------------------------------------------------------ list
    def refresh(self) -> None:
        needle = self.filter.value.strip().lower()
        previous = self.list.value
        options = []
        for f in self.document.functions.list():
            if needle and needle not in f.qualified_name.lower():
                continue
            label = (
                f"{f.qualified_name}  —  {f.node_count} nodes, {len(f.instances)} instance(s), "
                f"{len(f.parameters)} parameter(s)"
            )
            options.append((label, (f.name, f.domain, f.overload)))
        self.list.options = options
        keys = [key for _, key in options]
        self.list.value = previous if previous in keys else (keys[0] if keys else None)

    def selected(self) -> tuple[str, str, str]:
        if self.list.value is None:
            raise DocumentError("Model Local Functions", "no function is selected.", "Select one in the list.")
        key: tuple[str, str, str] = self.list.value  # the options' values are (name, domain, overload)
        return key

    def select(self, name: str, domain: str, overload: str = "") -> None:
        self.filter.value = ""
        self.list.value = (name, domain, overload)

    # ------------------------------------------------------------ actions
    def open_selected(self) -> Any:
        name, domain, overload = self.selected()
        return OPEN_FUNCTION(self.designer, name=name, domain=domain, overload=overload)

    def create(self, name: str, domain: str) -> None:
        CREATE_FUNCTION(self.designer, name=name, domain=domain)
        self.form.children = []
        self.refresh()
        self.select(name, domain)
        self.message.value = fill(INFO, f"Created {domain}::{name}.")

    def delete(self, name: str, domain: str, overload: str = "") -> None:
        DELETE_FUNCTION(self.designer, name=name, domain=domain, overload=overload)
        self.form.children = []
        self.message.value = fill(INFO, f"Deleted {domain}::{name}; its instances are custom operators.")

    def extract(self, path: str) -> Path:
        name, domain, _ = self.selected()
        written = EXTRACT_FUNCTION(self.designer, name=name, domain=domain, path=path)
        self.form.children = []
        self.message.value = fill(INFO, f"Extracted {domain}::{name} to {written}.")
        return Path(str(written))

    # ------------------------------------------------------------ forms
    def _ask_create(self) -> None:
        name = w.Text(placeholder="name (e.g. Block)", description="Name", layout=w.Layout(width="300px"))
        domain = w.Text(value="local", description="Domain", layout=w.Layout(width="300px"))
        name.add_class("dld-fn-new-name")
        domain.add_class("dld-fn-new-domain")
        ok = _button("Create", "check", "Create the function (one undo step)", "dld-fn-create")
        ok.button_style = "primary"
        ok.on_click(lambda _b: self._guard(lambda: self.create(name.value.strip(), domain.value.strip())))
        self._form("Create a local function", [name, domain], ok)

    def _ask_delete(self) -> None:
        name, domain, overload = self.selected()
        count = next(
            (
                len(f.instances)
                for f in self.document.functions.list()
                if (f.name, f.domain, f.overload) == (name, domain, overload)
            ),
            0,
        )
        ok = _button("Delete", "trash", "Delete the function (one undo step)", "dld-fn-delete")
        ok.button_style = "danger"
        ok.on_click(lambda _b: self._guard(lambda: self.delete(name, domain, overload)))
        self._form(f"Delete {domain}::{name}? Its {count} instance(s) become custom operators.", [], ok)

    def _ask_extract(self) -> None:
        name, domain, _ = self.selected()
        home = Path(self.document.path) if self.document.path else Path.cwd() / f"{self.document.name}.onnx"
        path = w.Text(
            value=str(home.with_name(f"{home.stem}_{name}.onnx")),
            description="Output path",
            layout=w.Layout(width="560px"),
        )
        path.add_class("dld-fn-extract-path")
        ok = _button("Extract", "save", "Write the function as a standalone model", "dld-fn-extract-ok")
        ok.button_style = "primary"
        ok.on_click(lambda _b: self._guard(lambda: self.extract(path.value.strip())))
        self._form(f"Extract {domain}::{name} to a standalone model", [path], ok)

    def _form(self, title: str, fields: list[w.Widget], ok: w.Button) -> None:
        cancel = _button("Cancel", "", "", "dld-fn-cancel")
        cancel.on_click(lambda _b: setattr(self.form, "children", []))
        self.message.value = ""
        self.form.children = [w.HTML(bold(title)), *fields, w.HBox([ok, cancel])]
