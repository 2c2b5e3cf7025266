"""What every canvas widget shares: the browser module (canvas.js), the synced view settings, and image export
(the browser draws the image; the kernel writes the file when it answers). GraphCanvas (a document) and
EngineCanvas (a TensorRT engine graph, read-only) build on it.
"""

from __future__ import annotations

import base64
import logging
import pathlib
import re
from collections.abc import Callable
from typing import Any

import traitlets

from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.widgets.canvas.overlays.base import Overlays
from dld_jupyter.widgets.canvas.protocol import ExportFormat
from dld_jupyter.widgets.widget_base import DldWidget

log = logging.getLogger(__name__)
SCHEMES = ("default", "okabe-ito", "tol-muted")
_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")  # goes into the SVG as it is


class CanvasBase(DldWidget, bundle="canvas"):
    keywords = ("color_scheme", "show_grid", "show_constants", "height", "layout")

    selection = traitlets.List(traitlets.Unicode()).tag(sync=True)
    color_scheme = traitlets.Enum(SCHEMES, default_value="default").tag(sync=True)
    show_grid = traitlets.Bool(False).tag(sync=True)
    show_constants = traitlets.Bool(False).tag(sync=True)
    height = traitlets.Unicode("600px").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    channel_token = traitlets.Unicode("").tag(sync=True)  # the fast channel's socket ("" : every message by comm)
    # Why the model refuses edits now ("" : editable): the context menu leaves its edit items out while it is set.
    editing_locked = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._exports: dict[int, tuple[pathlib.Path, str, dict[str, Any]]] = {}  # target, format, request
        self._next_export = 1
        self.js_errors: list[str] = []  # errors the browser side reported (js_error), newest last
        self.on_error: Callable[[str], None] | None = None  # where they are shown (the designer's output)
        self.overlays = Overlays(self)  # drawn over the graph (overlays/): routed by name, re-sent on hello

    def _report(self, text: str) -> None:
        self.js_errors.append(text)
        if self.on_error is not None:
            self.on_error(text)
        else:
            log.error("%s", text)

    def _report_js_error(self, content: dict[str, Any]) -> None:
        self._report(f"[{type(self).__name__} {self.title!r}] browser error: {content.get('message')}")

    def export(
        self,
        path: str | pathlib.Path,
        format: ExportFormat | None = None,
        background: str = "white",
        grid: bool | str = False,
    ) -> pathlib.Path:
        """Ask the browser for an image of the canvas; the file is written when it answers (asynchronously).

        `background`: "white" (default), "theme" (the JupyterLab theme's background and colours, dark in a dark
        theme), "transparent" (no background, the theme's colours), or a colour such as "#1e1e1e" (a dark one draws
        in dark-theme colours). A JPEG cannot be transparent: it gets the theme's background.
        `grid`: True draws the layout grid in the theme's grid colour; a colour ("#94a3b8") draws it in that colour.
        """
        if not background.strip():
            raise ValueError('export background is empty: use "white", "theme", "transparent" or a colour (#ffffff).')
        grid_colour = ""
        if isinstance(grid, str):
            if not _HEX_COLOUR.fullmatch(grid.strip()):
                raise ValueError(f"export grid colour {grid!r}: give a hex colour such as #94a3b8 (or True/False).")
            grid_colour, grid = grid.strip(), True
        target = pathlib.Path(path)
        fmt = format or target.suffix.lstrip(".").lower().replace("jpeg", "jpg")
        if fmt not in ("png", "jpg", "svg"):
            raise ValueError(f"export format {fmt!r}: use png, jpg or svg.")
        request = self._next_export
        self._next_export += 1
        message = {"kind": "export_request", "request": request, "format": fmt, "background": background, "grid": grid,
                   "grid_colour": grid_colour}
        self._exports[request] = (target, fmt, message)
        self.send(message)
        return target

    def _resend_exports(self) -> None:
        """A view that connects answers the exports still unanswered: one asked while the canvas's view was being
        re-created (a tab re-laid out, a page reload) would otherwise never be written. The first answer wins."""
        for _target, _fmt, message in list(self._exports.values()):
            self.send(message)

    def _write_export(self, content: dict[str, Any]) -> None:
        found = self._exports.pop(int(content.get("request", 0)), None)
        if found is None:
            return  # answered already (by another view)
        target, fmt, _message = found
        data = str(content.get("data", ""))
        payload = data.encode("utf-8") if fmt == "svg" else base64.b64decode(data)
        # Atomic through a private mkstemp file (never a predictable name that a planted symlink could redirect).
        atomic_write_bytes(target, payload)
