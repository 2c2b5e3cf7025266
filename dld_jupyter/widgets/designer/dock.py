"""The designer's side dock (issue 21: "a designer laid out like a tool"): the canvas takes the main area and the
editors, the Profile panel and the Tools / Export Engine dialogs sit in a docked panel beside it (or below it,
`side="bottom"`, or `move()` later), resized by dragging the splitter between them and hidden or shown by the
toolbar's Panels button (or a double-click on the splitter). The dock's size is kept for the session: the next
designer opens with it. Named layouts of the dock: layouts.py.

Only plain ipywidgets boxes and one small anywidget (the splitter, js/src/widgets/designer/dock.ts) are used, so
the layout is the same in a notebook cell, in a JupyterLab designer tab and in front ends without our lab extension; the
splitter's CSS lays the designer out (in a designer tab the designer fills the tab, see dock.css).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import traitlets

from dld_jupyter.widgets.closing import replace_children
from dld_jupyter.widgets.widget_base import DldWidget

SIDES = ("right", "bottom")
MIN_SIZE = 160
_SESSION: dict[str, Any] = {"right": 380, "bottom": 260}  # the dock's last size per side, for the next designers


class DockSplitter(DldWidget, bundle="dock"):
    """The bar between canvas and dock; `size` (px) is set when a drag ends."""

    keywords = ("size", "bottom")

    size = traitlets.Int(380).tag(sync=True)
    bottom = traitlets.Bool(False).tag(sync=True)


class SideDock:
    """`body` (canvas | splitter | dock) and the toolbar's `toggle`; `dock.children` are the docked panels."""

    def __init__(self, canvas: w.Widget, panels: list[w.Widget], *, height: str, side: str = "right") -> None:
        self.side = _checked(side)
        self.dock = w.VBox(panels)
        self.dock.add_class("dld-dock")
        self.splitter = DockSplitter(size=int(_SESSION[side]), bottom=side == "bottom")
        self.splitter.add_class("dld-dock-splitter")
        self.splitter.observe(lambda change: self.resize(int(change["new"])), names="size")
        self.splitter.on_msg(self._on_msg)
        self.body = w.Box([canvas, self.splitter, self.dock], layout=w.Layout(height=height))
        self.body.add_class("dld-designer-body")
        self._canvas = canvas
        self.toggle = w.ToggleButton(
            value=True,
            description="Panels",
            icon="columns",
            tooltip="Show or hide the docked panels (editors, profile, tools)",
            layout=w.Layout(width="auto"),
        )
        self.toggle.add_class("dld-dock-toggle")
        self.toggle.observe(lambda change: self._show(bool(change["new"])), names="value")
        self.set_canvas(canvas)
        self.move(side)

    @property
    def size(self) -> int:
        return int(self.splitter.size)

    @property
    def shown(self) -> bool:
        return bool(self.toggle.value)

    def set_canvas(self, canvas: w.Widget) -> None:
        """A new model's canvas takes the main area (its height is the body's in a notebook cell); the old one is
        closed."""
        canvas.add_class("dld-designer-canvas")
        replace_children(self.body, [canvas, self.splitter, self.dock])
        self._canvas = canvas
        canvas.observe(lambda _change: self._fit_height(), names="height")
        self._fit_height()

    def _fit_height(self) -> None:
        """Beside: the body is as high as the canvas (its height option); below: the canvas keeps its height and
        the dock adds its own."""
        self.body.layout.height = str(getattr(self._canvas, "height", "600px")) if self.side == "right" else None

    def move(self, side: str, size: int | None = None) -> None:
        """Dock the panels beside the canvas ("right") or below it ("bottom"), at `size` px (default: the size
        last used on that side this session)."""
        self.side = _checked(side)
        bottom = side == "bottom"
        if bottom:
            self.body.add_class("dld-dock-bottom")
        else:
            self.body.remove_class("dld-dock-bottom")
            self.dock.layout.height = None
        self.splitter.bottom = bottom
        self._fit_height()
        self.resize(int(_SESSION[side] if size is None else size))

    def resize(self, size: int) -> None:
        """Set the dock's width (its height in a bottom dock), in px; remembered for the session's next designers."""
        size = max(MIN_SIZE, int(size))
        if self.side == "bottom":
            self.dock.layout.height = f"{size}px"
            self.dock.layout.width = "100%"
        else:
            self.dock.layout.width = f"{size}px"
        _SESSION[self.side] = size
        if self.splitter.size != size:
            self.splitter.size = size

    def show(self, shown: bool = True) -> None:
        """Show (or hide) the dock; the canvas takes the room it leaves."""
        self.toggle.value = shown

    def reveal(self) -> None:
        """A panel was opened in the dock: make sure it is visible."""
        self.show(True)

    def _show(self, shown: bool) -> None:
        display = None if shown else "none"
        self.dock.layout.display = display
        self.splitter.layout.display = display

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "collapse":
            self.show(False)


def _checked(side: str) -> str:
    if side not in SIDES:
        raise ValueError(f"Designer dock: side {side!r} is not one of {', '.join(SIDES)}; pick one of them.")
    return side
