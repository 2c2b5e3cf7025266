"""The Network Overview overlay (seed 001 §4.4; js mirror: overlays/analysis.ts): while a model is analysed, each
node's glyph gains a line with its current output shape (and, when layer timings are on, its latest time), nodes
with a breakpoint wear a badge, the node the debugger stopped at is outlined, and selecting a node draws its input
links yellow and its output links blue; a node an analysis layer follows wears the layer's badge and name.

State Python knows: the per-node lines, the breakpoints, the stop, the analysis layers (one "set"). The browser asks
through the canvas context menu ("Add Breakpoint" / "Remove Breakpoint" on a node, "Inspect Channels", "Add Analysis
Layer: <kind>" with an optional second node `other`, "Remove Analysis Layer <name>" with its `layer`), each an
`AnalysisRequest` (the browser's ANALYSIS_REQUESTS, the same words): `on_request(request, node_id, layer, other)`
takes them (the analysis panel); one it does not know is refused in the log, naming the known ones. Selection
colours are the browser's own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any, ClassVar

from dld_jupyter.activities.analysis.actions import AnalysisAction
from dld_jupyter.document import Event
from dld_jupyter.widgets.canvas.overlays.base import Overlay, OverlayHost
from dld_jupyter.widgets.canvas.protocol import OverlayMessage

log = logging.getLogger(__name__)


class AnalysisRequest(str, Enum):
    """What a node's menu asks of the analysis (js: ANALYSIS_REQUESTS in overlays/analysis.ts, the same words)."""

    ADD_BREAKPOINT = AnalysisAction.ADD_BREAKPOINT.value  # launching the analysis if needed
    REMOVE_BREAKPOINT = AnalysisAction.REMOVE_BREAKPOINT.value
    INSPECT = "inspect"  # the node in the Channel Inspector
    ADD_LAYER = "add_layer"  # `layer`: the analysis layer's kind; `other`: a Mix's second node
    REMOVE_LAYER = "remove_layer"  # `layer`: the analysis layer's name

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: object) -> AnalysisRequest:
        """The request `text` names; ValueError naming the known ones for anything else."""
        try:
            return cls(text)
        except ValueError:
            known = ", ".join(request.value for request in cls)
            raise ValueError(f"{text!r} is no request of the analysis overlay (one of {known})") from None


class AnalysisOverlay(Overlay):
    """`show(lines, breakpoints, position)` draws; `clear()` removes; `on_request` gets the menu's requests."""

    name: ClassVar[str] = "analysis"
    label: ClassVar[str] = "Analysis"
    paints: ClassVar[bool] = False  # lines, badges and an outline: drawn beside the colour owner

    def __init__(self, canvas: OverlayHost) -> None:
        super().__init__(canvas)
        self.payload: dict[str, Any] | None = None
        self.on_request: Callable[[AnalysisRequest, str, str, str], object] | None = None
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
        try:
            request = AnalysisRequest.parse(message.get("action"))
        except ValueError as error:
            log.warning("the analysis overlay was asked %s: the browser bundle and the kernel's dld_jupyter differ; "
                        "reinstall dld_jupyter and reload the page.", error)
            return
        node = str(message.get("id", ""))
        if node and self.on_request is not None:
            self.on_request(request, node, str(message.get("layer", "")), str(message.get("other", "")))
