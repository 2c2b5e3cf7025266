"""The Network Overview overlay (seed 001 §4.4; js mirror: overlays/analysis.ts): while a model is analysed, each
node's glyph gains a line with its current output shape (and, when layer timings are on, its latest time), nodes
with a breakpoint wear a badge, the node the debugger stopped at is outlined, and selecting a node draws its input
links yellow and its output links blue; a node an analysis layer follows wears the layer's badge and name.

State Python knows: the per-node lines, the breakpoints, the stop, the analysis layers (one "set"). The browser asks
through the canvas context menu ("Add Breakpoint" / "Remove Breakpoint" on a node, "Inspect Channels", "Add Analysis
Layer: <kind>" with an optional second node `other`, "Remove Analysis Layer <name>" with its `layer`):
`on_request(action, node_id, layer, other)` takes them (the analysis panel). Selection colours are the browser's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from dld_jupyter.document import Event
from dld_jupyter.widgets.canvas.overlays.base import Overlay, OverlayHost
from dld_jupyter.widgets.canvas.protocol import OverlayMessage

REQUESTS = ("add_breakpoint", "remove_breakpoint", "inspect", "add_layer", "remove_layer")


class AnalysisOverlay(Overlay):
    """`show(lines, breakpoints, position)` draws; `clear()` removes; `on_request` gets the menu's requests."""

    name: ClassVar[str] = "analysis"
    label: ClassVar[str] = "Analysis"
    paints: ClassVar[bool] = False  # lines, badges and an outline: drawn beside the colour owner

    def __init__(self, canvas: OverlayHost) -> None:
        super().__init__(canvas)
        self.payload: dict[str, Any] | None = None
        self.on_request: Callable[[str, str, str, str], object] | None = None
        self.watchers: list[Callable[[list[str]], object]] = []  # told the breakpoints at each change (layer explorer)

    def show(self, lines: Mapping[str, str], breakpoints: Sequence[str], position: str | None,
             layers: Mapping[str, Sequence[Mapping[str, str]]] | None = None) -> None:
        """`lines`: node id → the text under its glyph (shape, time); breakpoints and the stop as node ids;
        `layers`: node id → the analysis layers ({name, kind}) that follow it."""
        self.payload = {"lines": dict(lines), "breakpoints": list(breakpoints), "position": position,
                        "layers": {node: [dict(x) for x in found] for node, found in (layers or {}).items()}}
        self.strip_add()
        self.send(self.message("set", self.payload))
        self._tell()

    def model_changed(self, events: Sequence[Event]) -> bool:
        return True  # the model is read-only while analysed; its panel redraws this at each stop

    def clear(self) -> None:
        self.payload = None
        self.send(self.message("clear"))
        self.strip_remove()
        self._tell()

    @property
    def breakpoints(self) -> list[str]:
        return list(self.payload["breakpoints"]) if self.payload is not None else []

    def _tell(self) -> None:
        for watcher in list(self.watchers):
            watcher(self.breakpoints)

    def state(self) -> tuple[OverlayMessage, list[bytes]] | None:
        return (self.message("set", self.payload), []) if self.payload is not None else None

    def receive(self, message: OverlayMessage, buffers: list[bytes]) -> None:
        action, node = str(message.get("action")), str(message.get("id", ""))
        if action in REQUESTS and node and self.on_request is not None:
            self.on_request(action, node, str(message.get("layer", "")), str(message.get("other", "")))
