"""The Designer's toolbars: a model's (New, Open, Save, the operations, the view controls) and a child designer's
(Confirm and Close first; no New, Open or Save: the parent saves). Each button runs a registered operation on the
designer (frontdoor/operations.py) or one of its own actions, its errors shown in the designer's output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import ipywidgets as w

from dld_jupyter.frontdoor.children import (
    CLOSE_CHILD,
    CONFIRM_EDITS,
    EXTRACT_MODEL_SUBGRAPH,
    FUNCTION_SETTINGS,
    LOCAL_FUNCTIONS,
    child_kind,
)
from dld_jupyter.frontdoor.comparisons import CHECK_AGAINST_ORIGINAL, COMPARE_WITH
from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.frontdoor.operations import (
    ARRANGE,
    CHECK,
    EXPORT_ENGINE,
    EXPORT_IMAGE,
    PROFILE,
    REDO,
    SAVE,
    SHOW_CONSTANTS,
    SHOW_GRID,
    SWEEP,
    UNDO,
    Operation,
)
from dld_jupyter.frontdoor.tools import GLOBAL_MODIFICATIONS
from dld_jupyter.widgets.canvas.canvas_base import SCHEMES

if TYPE_CHECKING:
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas
    from dld_jupyter.widgets.designer.analysis_mode import AnalysisMode
    from dld_jupyter.widgets.designer.dock import SideDock


class ToolbarHost(OperationTarget, Protocol):
    """What the toolbars act on: the designer."""

    analysis_mode: AnalysisMode
    side_dock: SideDock

    @property
    def canvas(self) -> GraphCanvas: ...

    def new(self, opset: int = 21, contrib: bool = False) -> None: ...

    def open_model(self, path: str) -> None: ...

    def confirm(self) -> None: ...

    def request_close(self) -> None: ...

    def _guard(self, action: Any) -> None: ...


class _Buttons:
    """Buttons running actions and registered operations on one designer (args are read when clicked). They share
    one Layout and one ButtonStyle, widgets of their own in ipywidgets: 18 buttons made 54 widgets, each sent and made
    in the page before the designer's first view (issue 42). No button changes its own layout or style."""

    def __init__(self, d: ToolbarHost) -> None:
        self.d = d
        self.layout = w.Layout(width="auto")
        self.style = w.ButtonStyle()

    def button(self, label: str, icon: str, tip: str, action: Callable[[], object]) -> w.Button:
        b = w.Button(description=label, icon=icon, tooltip=tip, layout=self.layout, style=self.style)
        b.on_click(lambda _b: self.d._guard(action))
        return b

    def operation(self, op: Operation, icon: str, label: str = "", **args: Callable[[], object]) -> w.Button:
        return self.button(label or op.label, icon, op.caption,
                           lambda: op(self.d, **{k: get() for k, get in args.items()}))


class ViewControls:
    """The path box (a model to open, an image to export, a model to compare with), the colour scheme and the
    grid and constants toggles, linked to the canvas."""

    def __init__(self, canvas: GraphCanvas) -> None:
        self.path_box = w.Text(placeholder="path/to/model.onnx or image.png", layout=w.Layout(width="180px"))
        self.scheme = w.Dropdown(options=SCHEMES, value=canvas.color_scheme, layout=w.Layout(width="110px"),
                                 tooltip="Colour scheme (okabe-ito and tol-muted are colour-blind safe)")
        self.scheme.observe(lambda c: setattr(canvas, "color_scheme", c["new"]), names="value")
        self.grid = w.ToggleButton(description=SHOW_GRID.label, value=canvas.show_grid,
                                   layout=w.Layout(width="auto"), tooltip=SHOW_GRID.caption)
        w.link((self.grid, "value"), (canvas, "show_grid"))
        self.constants = w.ToggleButton(description=SHOW_CONSTANTS.label, value=canvas.show_constants,
                                        layout=w.Layout(width="auto"), tooltip=SHOW_CONSTANTS.caption)
        w.link((self.constants, "value"), (canvas, "show_constants"))
        self.widgets: list[w.Widget] = [self.path_box, self.scheme, self.grid, self.constants]

    def path(self) -> str:
        return str(self.path_box.value)


def model_toolbar(d: ToolbarHost) -> w.HBox:
    buttons, view = _Buttons(d), ViewControls(d.canvas)
    button, operation = buttons.button, buttons.operation
    return w.HBox([
        button("New", "file", "New empty model", lambda: d.new()),
        button("Open", "folder-open", "Open the model at the path", lambda: d.open_model(view.path())),
        operation(SAVE, "save"),
        operation(UNDO, "undo"), operation(REDO, "redo"),
        operation(ARRANGE, "sitemap"),
        operation(CHECK, "check"),
        operation(PROFILE, "tachometer"), operation(SWEEP, "th"), d.analysis_mode.make_button(),
        operation(GLOBAL_MODIFICATIONS, "wrench"),
        operation(LOCAL_FUNCTIONS, "cubes"),
        operation(EXTRACT_MODEL_SUBGRAPH, "share-square-o", label="Extract Model Subgraph…"),
        operation(EXPORT_ENGINE, "microchip"),
        operation(EXPORT_IMAGE, "image", path=view.path),
        operation(COMPARE_WITH, "columns", path=view.path),
        operation(CHECK_AGAINST_ORIGINAL, "search"),
        *view.widgets,
        d.side_dock.toggle,
    ], layout=w.Layout(flex_flow="row wrap"))


def child_toolbar(d: ToolbarHost) -> w.HBox:
    """A subgraph / function designer: Confirm and Close first; no New, Open, Save (the parent saves)."""
    buttons, view = _Buttons(d), ViewControls(d.canvas)
    operation = buttons.operation
    label = str(getattr(d.document, "confirm_label", "Confirm Edits"))
    confirm = buttons.button(label, "check-square-o", CONFIRM_EDITS.caption, lambda: d.confirm())
    confirm.button_style = "primary"
    confirm.add_class("dld-confirm-edits")
    close = buttons.button("Close", "times", CLOSE_CHILD.caption, lambda: d.request_close())
    close.add_class("dld-close-child")
    extra = [operation(FUNCTION_SETTINGS, "sliders")] if child_kind(d) == "function" else []
    return w.HBox([
        confirm, close, *extra,
        operation(UNDO, "undo"),
        operation(REDO, "redo"),
        operation(ARRANGE, "sitemap"),
        operation(CHECK, "check"),
        operation(EXTRACT_MODEL_SUBGRAPH, "share-square-o", label="Extract Model Subgraph…"),
        operation(EXPORT_IMAGE, "image", path=view.path),
        *view.widgets,
        d.side_dock.toggle,
    ], layout=w.Layout(flex_flow="row wrap"))
