"""Extract Model Subgraph (seed 000 "Subgraphs"): choose the subgraph by the type of its parent, the parent's scope
and the subgraph's name, and an output path; the result is a standalone model (outer references become its inputs).

Only operators of this document are listed; a subgraph inside another subgraph or a local function is extracted
from that subgraph's or function's own designer (as the seed says). Shown in the designer's tools slot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.document import DocumentError
from dld_jupyter.formats.html_text import bold, join, small, tag
from dld_jupyter.frontdoor.children import EXTRACT_MODEL_SUBGRAPH
from dld_jupyter.frontdoor.operations import OperationUnavailable
from dld_jupyter.widgets.widget_base import DldVBox

OPERATOR = "Operator"
FUNCTION = "Local function"
STYLE = {"description_width": "120px"}


class ExtractSubgraphDialog(DldVBox, css="dld-extract-subgraph"):
    def __init__(self, designer: Any, node: str | None = None) -> None:
        self.designer = designer
        self.document = designer.document
        self.result: Path | None = None
        self.parent_type = w.Dropdown(
            options=[OPERATOR, FUNCTION], value=OPERATOR, description="Parent type", style=STYLE
        )
        scopes = [(f"{n.name or n.id} ({n.op_type})", n.id) for n in self.document.nodes() if n.subgraphs]
        self.scope = w.Dropdown(options=scopes, description="Parent scope", style=STYLE, layout=w.Layout(width="420px"))
        self.subgraph = w.Dropdown(options=[], description="Subgraph", style=STYLE, layout=w.Layout(width="420px"))
        self.path = w.Text(description="Output path", style=STYLE, layout=w.Layout(width="560px"))
        for widget, cls in (
            (self.parent_type, "dld-xs-type"),
            (self.scope, "dld-xs-scope"),
            (self.subgraph, "dld-xs-subgraph"),
            (self.path, "dld-xs-path"),
        ):
            widget.add_class(cls)
        self.message = w.HTML()
        extract = w.Button(description="Extract", icon="save", button_style="primary", layout=w.Layout(width="auto"))
        extract.add_class("dld-xs-extract")
        extract.on_click(lambda _b: self._guard(self.extract))
        close = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        close.on_click(lambda _b: self.close())
        self.parent_type.observe(lambda _c: self._sync(), names="value")
        self.scope.observe(lambda _c: self._fill_subgraphs(), names="value")
        self.subgraph.observe(lambda _c: self._default_path(), names="value")
        header = w.HTML(join([
            bold("Extract Model Subgraph"), " ", small(self.document.name),
            tag("div", small("The subgraph becomes a standalone model; the values it reads from the "
                             "enclosing scope become its inputs.")),
        ]))
        super().__init__(
            [header, self.parent_type, self.scope, self.subgraph, self.path, w.HBox([extract, close]), self.message],
            layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"),
        )
        if node is not None and node in [v for _, v in scopes]:
            self.scope.value = node
        self._sync()

    def _sync(self) -> None:
        function = self.parent_type.value == FUNCTION
        self.scope.disabled = self.subgraph.disabled = function
        if function:
            self.message.value = (
                "<small>Subgraphs of operators inside a local function are extracted from the "
                "function's designer: open it from Model Local Functions, then use Extract Model "
                "Subgraph there.</small>"
            )
        else:
            self.message.value = "" if self.scope.options else "<small>No operator here has a subgraph.</small>"
            self._fill_subgraphs()

    def _fill_subgraphs(self) -> None:
        node = self.scope.value
        slots = self.document.subgraphs.slots(node) if node else []
        self.subgraph.options = [
            (
                f"{s.name or '(unnamed)'} — {s.attribute}"
                + (f"[{s.index}]" if s.index is not None else "")
                + f" ({s.node_count} nodes)",
                (s.attribute, s.index),
            )
            for s in slots
        ]
        self.subgraph.value = (slots[0].attribute, slots[0].index) if slots else None
        self._default_path()

    def _default_path(self) -> None:
        if self.subgraph.value is None or self.scope.value is None:
            return
        attribute, index = self.subgraph.value
        home = Path(self.document.path) if self.document.path else Path.cwd() / f"{self.document.name}.onnx"
        node = self.document.node(self.scope.value).name or self.scope.value
        suffix = f"{node}_{attribute}" + (f"{index}" if index is not None else "")
        self.path.value = str(home.with_name(f"{home.stem}_{suffix}.onnx".replace("/", "_")))

    def extract(self) -> Path:
        if self.parent_type.value == FUNCTION or self.subgraph.value is None:
            raise DocumentError(
                "Extract Model Subgraph",
                "no operator subgraph is chosen.",
                "Choose an operator as parent type, its scope and the subgraph.",
            )
        attribute, index = self.subgraph.value
        written = EXTRACT_MODEL_SUBGRAPH(
            self.designer, node=self.scope.value, attribute=attribute, index=index, path=self.path.value.strip()
        )
        self.result = Path(str(written))
        self.message.value = tag("div", "Extracted to ", self.result, class_="dld-xs-done", style="color:#15803d")
        return self.result

    def _guard(self, action: Any) -> None:
        try:
            action()
        except (DocumentError, OperationUnavailable, ValueError, OSError) as error:
            self.message.value = tag("div", error, class_="dld-xs-error", style="color:#b91c1c;white-space:pre-wrap")
