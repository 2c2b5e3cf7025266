"""An overlay's kernel half and the registry a canvas keeps of them (js mirror: overlays/base.ts, same names).

An overlay (heat, divergence, diff, node data, analysis) draws over a canvas's graph without changing it. Its state
lives here, in the kernel; the browser half draws it. Every message of every overlay is one `overlay` message
(`{kind: "overlay", overlay: name, action, ...payload}`, widgets/canvas/protocol.py), so the canvas routes them by
name in one place, and the order of comm handlers matters to nobody. Each overlay registers with its canvas's
`overlays`; a view that connects or reconnects (its `hello`) gets every active overlay's state after its snapshot.

`Overlays` is also the overlay manager (`designer.overlays`): the strip (strip.py) lists the active overlays, one
owns the node colours, each is hidden, shown or cleared from there or from Python; a structural edit of the
document clears the overlays that no longer describe it (GraphCanvas tells `model_changed`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Protocol, cast

from dld_jupyter.document import Event
from dld_jupyter.formats import envelope
from dld_jupyter.widgets.canvas.overlays.strip import ACTIONS, STRIP, OverlayStrip, ShownOverlay, structural
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
    label: ClassVar[str] = ""  # its name in the strip (strip.py)
    paints: ClassVar[bool] = True  # it colours nodes: only the strip's colour owner is drawn
    again: ClassVar[str] = ""  # how to draw it again once an edit cleared it (the strip's note)

    def __init__(self, canvas: OverlayHost) -> None:
        self.canvas = canvas
        canvas.overlays.register(self)

    def clear(self) -> None:
        """Take it off every view (and out of the strip)."""

    def model_changed(self, events: Sequence[Event]) -> bool:
        """The document changed structurally (`events`): whether this overlay still describes it (it may redraw
        what still holds). False: it is cleared, the strip saying so. Most describe the model as it was."""
        return False

    def strip_add(self) -> None:
        """Call after drawing a new state: the strip lists it (a colour overlay takes the node colours)."""
        self.canvas.overlays.strip.activated(self.name, self.label or self.name, self.paints)

    def strip_remove(self) -> None:
        """Call after clearing it: out of the strip."""
        self.canvas.overlays.strip.deactivated(self.name)

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
        self.strip = OverlayStrip(lambda message: canvas.send(message))
        self.revision = 0  # structural edits seen: a result started before one describes an older model

    def register(self, overlay: Overlay) -> None:
        if overlay.name == STRIP:
            raise ValueError(f"an overlay may not be named {STRIP!r}: the overlay strip's messages use it.")
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

    # ------------------------------------------------------------ the manager (designer.overlays)
    def __repr__(self) -> str:
        shown = [f"{o.name}{' (owns the colours)' if o.owns_colour else '' if o.visible else ' (hidden)'}"
                 for o in self.active]
        return f"<Overlays: {', '.join(shown) or 'none shown'}{'; ' + self.note if self.note else ''}>"

    @property
    def active(self) -> list[ShownOverlay]:
        """The overlays shown on this canvas, in the order they were first shown, each visible or hidden, one
        owning the node colours."""
        return self.strip.entries()

    @property
    def owner(self) -> str | None:
        """The name of the overlay whose colours the nodes wear, None when none does."""
        return self.strip.owner

    @property
    def note(self) -> str:
        """What the last edit cleared ("" when nothing)."""
        return self.strip.note

    def clear(self, name: str | None = None) -> None:
        """Clear one overlay by name, or every active one."""
        names = self.strip.names() if name is None else [self._active(name)]
        for found in names:
            self._by_name[found].clear()

    def hide(self, name: str) -> None:
        """Hide an overlay, keeping it (another visible colour overlay takes the node colours)."""
        self.strip.set_visible(self._active(name), False)

    def show(self, name: str) -> None:
        """Show a hidden overlay again, or pick one: it takes the node colours (a colour overlay)."""
        self.strip.set_visible(self._active(name), True)

    def _active(self, name: str) -> str:
        if name not in self.strip.names():
            shown = ", ".join(self.strip.names()) or "none"
            raise ValueError(f"overlay {name!r} is not shown on this canvas (shown: {shown}); show it first "
                             "(show_heat, compare_with, show_divergence, show_node_data, analyse).")
        return name

    def check_revision(self, revision: int, what: str) -> None:
        """Refuse a result started at `revision` (this `revision` then) when the model changed since: it describes
        the model as it was, and drawn on it would colour nodes that changed."""
        if revision != self.revision:
            raise ValueError(f"{what}: the model changed while it ran, so its result describes the model as it was "
                             "and is not drawn; run it again.")

    def model_changed(self, events: Sequence[Event]) -> None:
        """The document changed (its events): overlays that no longer describe it are cleared, the strip says so."""
        if not structural(events):
            return
        self.revision += 1
        stale = [self._by_name[name] for name in self.strip.names() if not self._by_name[name].model_changed(events)]
        for overlay in stale:
            overlay.clear()
        self.strip.dropped([o.label or o.name for o in stale], [o.again for o in stale])

    def hello(self) -> None:
        """A view connected (after its snapshot was sent): send it the strip, then the state of every active
        overlay (the strip first: each overlay knows whether it is drawn when its state comes)."""
        strip = self.strip.message()
        if strip is not None:
            self._canvas.send(strip)
        for overlay in self._by_name.values():
            found = overlay.state()
            if found is not None:
                self._canvas.send(*found)

    def receive(self, content: Mapping[str, Any], buffers: list[bytes]) -> None:
        """Route a browser's `overlay` message to its overlay (a legend's close X, "closed", clears it on every
        view; a context-menu item asks the analysis); the strip's to the manager. A message in the envelope (its
        `request` number, js channel.ts overlayRequest) gets its reply: ok once routed, else why not."""
        request = content.get("request")
        if not isinstance(request, int):
            self._route(content, buffers)
            return
        try:
            refused = self._route(content, buffers)
        except Exception as error:  # the browser shows the reply's text; the log keeps the trace
            log.exception("the %r overlay's %r failed", content.get("overlay"), content.get("action"))
            refused = f"{content.get('overlay')} {content.get('action')} failed: {type(error).__name__}: {error}"
        answer = envelope.ok(request) if refused is None else envelope.failed(request, refused)
        self._canvas.send({"kind": "reply", **answer, "view": content.get("view"), "patches": []})

    def _route(self, content: Mapping[str, Any], buffers: list[bytes]) -> str | None:
        """Hand the message to its overlay; why not when this canvas has no overlay of that name."""
        name = str(content.get("overlay"))
        if name == STRIP:
            self._strip_asked(str(content.get("action")), str(content.get("name", "")))
            return None
        overlay = self._by_name.get(name)
        if overlay is None:
            refused = (f"an overlay message for {name!r}, which this canvas has no overlay of (it has "
                       f"{sorted(self._by_name) or 'none'}): the browser bundle and the kernel's dld_jupyter differ; "
                       "reinstall dld_jupyter and reload the page.")
            log.warning("%s", refused)
            return refused
        if content.get("action") == "closed":
            overlay.clear()
            return None
        overlay.receive(cast(OverlayMessage, content), buffers)
        return None

    def _strip_asked(self, action: str, name: str) -> None:
        if action not in ACTIONS:
            log.warning("the overlay strip asked %r, which is none of %s: the browser bundle and the kernel's "
                        "dld_jupyter differ; reinstall dld_jupyter and reload the page.", action, ACTIONS)
            return
        if action == "dismiss":
            self.strip.dismiss()
        elif name not in self.strip.names():  # cleared meanwhile (another view, an edit): the strip is redrawn
            self.strip.publish()
        elif action == "clear":
            self.clear(name)
        else:
            self.strip.set_visible(name, action != "hide")
