"""An overlay's kernel half and the registry a canvas keeps of them (js mirror: overlays/base.ts, same names).

An overlay (heat, later divergence, diff, breakpoints...) draws over a canvas's graph without changing it. Its state
lives here, in the kernel; the browser half draws it. Every message of every overlay is one `overlay` message
(`{kind: "overlay", overlay: name, action, ...payload}`, widgets/canvas/protocol.py), so the canvas routes them by
name in one place, and the order of comm handlers matters to nobody. Each overlay registers with its canvas's
`overlays`; a view that connects or reconnects (its `hello`) gets every active overlay's state after its snapshot.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Protocol, cast

from dld_jupyter.widgets.canvas.protocol import OverlayMessage

log = logging.getLogger(__name__)


class OverlayHost(Protocol):
    """What an overlay needs of its canvas (canvas_base.py's CanvasBase; not imported: the canvas imports this)."""

    overlays: Overlays

    def send(self, content: Mapping[str, Any], buffers: list[bytes] | None = None) -> None: ...


class Overlay:
    """One overlay on one canvas. Subclasses name themselves (`name`, the browser half's name too), say what a
    connecting view must be sent (`state`) and take the browser's messages (`receive`)."""

    name: ClassVar[str] = ""

    def __init__(self, canvas: OverlayHost) -> None:
        self.canvas = canvas
        canvas.overlays.register(self)

    def state(self) -> tuple[OverlayMessage, list[bytes]] | None:
        """The message (and buffers) that draws the current state on a view that has just connected; None when
        nothing is shown. Called while the canvas handles the view's hello, also while a big model still loads
        (its overview is on screen): an overlay with state there must not wait for the document (heat cannot be
        shown before the document has loaded, so its state never waits)."""
        return None

    def receive(self, message: OverlayMessage, buffers: list[bytes]) -> None:
        """A message from the browser half (what the user did on the overlay)."""

    def message(self, action: str, payload: Mapping[str, Any] | None = None) -> OverlayMessage:
        """This overlay's message: `action` ("set", "clear"...) and its payload."""
        return cast(OverlayMessage, {"kind": "overlay", "overlay": self.name, "action": action, **(payload or {})})

    def send(self, message: OverlayMessage, buffers: list[bytes] | None = None) -> None:
        self.canvas.send(message, buffers)


class Overlays:
    """The overlays of one canvas, by name: the canvas's one route for `overlay` messages and its hello hook."""

    def __init__(self, canvas: OverlayHost) -> None:
        self._canvas = canvas
        self._by_name: dict[str, Overlay] = {}

    def register(self, overlay: Overlay) -> None:
        if not overlay.name:
            raise ValueError(f"{type(overlay).__name__} has no name: set the class attribute `name` (the browser "
                             "half's name in js/src/widgets/canvas/overlays/).")
        if overlay.name in self._by_name:
            raise ValueError(f"this canvas has a {overlay.name!r} overlay already: make one per canvas and keep it.")
        self._by_name[overlay.name] = overlay

    def get(self, name: str) -> Overlay | None:
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[Overlay]:
        return iter(self._by_name.values())

    def hello(self) -> None:
        """A view connected (after its snapshot was sent): send it the state of every active overlay."""
        for overlay in self._by_name.values():
            found = overlay.state()
            if found is not None:
                self._canvas.send(*found)

    def receive(self, content: Mapping[str, Any], buffers: list[bytes]) -> None:
        """Route a browser's `overlay` message to its overlay."""
        name = str(content.get("overlay"))
        overlay = self._by_name.get(name)
        if overlay is None:
            log.warning("an overlay message for %r, which this canvas has no overlay of (it has %s): the browser "
                        "bundle and the kernel's dld_jupyter differ; reinstall dld_jupyter and reload the page.",
                        name, sorted(self._by_name) or "none")
            return
        overlay.receive(cast(OverlayMessage, content), buffers)
