"""The overlay strip (js mirror: overlays/strip.ts): which overlays a canvas shows, which are hidden, and which one
owns the node colours.

Issue 42: overlays piled up. The Changes legend sat on the Divergence legend, heat colours stayed under diff colours
("added = blue" over blue heat), and a heat legend read "0.0 µs … 0.0 µs" after an in-place FP16 conversion. Here
each active overlay is one entry of one strip at the canvas's corner, shown or hidden (its state kept) and cleared
with its ×. Exactly one colour overlay (heat, divergence, diff, node data) owns the node colours: the visible one
shown or picked last. Only it paints and draws its legend. The analysis overlay colours no node: it is listed,
shown or hidden, beside the owner. A structural edit (nodes, links, initializers, model info; not a move, a save or
a check) asks each active overlay whether it still describes the model (Overlay.model_changed); one that does not is
cleared and the strip's note says so and how to draw it again.

State Python knows: all of it. The browser's strip sends what the user asked ("show", "hide", "pick", "clear",
"dismiss" the note) and draws each "set" of it; the overlays decide nothing about each other in the browser.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from dld_jupyter.document import (
    EdgesAdded,
    EdgesRemoved,
    Event,
    InitializersChanged,
    ModelInfoChanged,
    NodesAdded,
    NodesChanged,
    NodesRemoved,
)
from dld_jupyter.widgets.canvas.protocol import OverlayMessage

STRUCTURAL = (NodesAdded, NodesRemoved, NodesChanged, EdgesAdded, EdgesRemoved, InitializersChanged, ModelInfoChanged)
STRIP = "strip"  # the strip's name in `overlay` messages (no overlay may take it)
ACTIONS = ("show", "hide", "pick", "clear", "dismiss")  # what the browser's strip asks


def structural(events: Sequence[Event]) -> bool:
    """Whether these events changed what an overlay describes (the graph, its weights or the model's opsets)."""
    return any(isinstance(event, STRUCTURAL) for event in events)


@dataclass(frozen=True)
class ShownOverlay:
    """One entry of the strip, as `designer.overlays.active` lists it."""

    name: str  # the overlay's name ("heat", "divergence", "diff", "node_data", "analysis")
    label: str  # what the strip calls it
    visible: bool  # drawn (False: hidden from the strip, its state kept)
    owns_colour: bool  # the one overlay whose colours the nodes wear now


class StripEntry(TypedDict):
    name: str
    label: str
    visible: bool
    paints: bool


class StripMessage(OverlayMessage):
    """The strip's state: its entries in the order they were first shown, the colour owner, the note."""

    entries: list[StripEntry]
    owner: str | None
    note: str


@dataclass
class _Entry:
    label: str
    paints: bool
    visible: bool
    stamp: int  # when it was last shown or picked: the latest visible painter owns the colours


class OverlayStrip:
    """The strip's state; `send` takes its message (to every view) after each change."""

    def __init__(self, send: Callable[[StripMessage], None]) -> None:
        self._send = send
        self._entries: dict[str, _Entry] = {}  # active overlays, in the order they were first shown
        self._clock = 0
        self.note = ""  # what the last structural edit cleared, and how to draw it again

    @property
    def owner(self) -> str | None:
        painters = [(e.stamp, name) for name, e in self._entries.items() if e.paints and e.visible]
        return max(painters)[1] if painters else None

    def entries(self) -> list[ShownOverlay]:
        owner = self.owner
        return [ShownOverlay(name, e.label, e.visible, name == owner) for name, e in self._entries.items()]

    def names(self) -> list[str]:
        return list(self._entries)

    def activated(self, name: str, label: str, paints: bool) -> None:
        """An overlay drew a new state. A colour overlay becomes visible and takes the colours (it was just
        shown); the analysis overlay, redrawn at each step, keeps whether the user hid it."""
        entry = self._entries.get(name)
        if entry is not None and not paints:
            return  # nothing changes in the strip (and no message at each step of an analysis)
        self._clock += 1
        if entry is None:
            entry = self._entries[name] = _Entry(label, paints, True, self._clock)
        entry.visible, entry.stamp = True, self._clock
        self.note = ""  # a new state drawn: the note of what an earlier edit cleared is history
        self.publish()

    def deactivated(self, name: str) -> None:
        if self._entries.pop(name, None) is not None:
            self.publish()

    def set_visible(self, name: str, visible: bool) -> None:
        """Hide an overlay (another visible one takes the colours), or show it again (it takes them)."""
        entry = self._entries[name]
        self._clock += 1
        entry.visible = visible
        if visible:
            entry.stamp = self._clock
        self.publish()

    def dismiss(self) -> None:
        self.note = ""
        self.publish()

    def dropped(self, labels: list[str], hints: list[str]) -> None:
        """Overlays cleared because the model changed: the note names them and how to draw them again."""
        if not labels:
            return
        what = labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"
        self.note = (f"{what} cleared: the model changed after {'it was' if len(labels) == 1 else 'they were'} "
                     f"drawn ({'; '.join(h for h in hints if h)}).")
        self.publish()

    def message(self) -> StripMessage | None:
        """The strip's state, None when it has nothing to show (no overlay, no note)."""
        if not self._entries and not self.note:
            return None
        entries: list[StripEntry] = [{"name": name, "label": e.label, "visible": e.visible, "paints": e.paints}
                                     for name, e in self._entries.items()]
        return {"kind": "overlay", "overlay": STRIP, "action": "set", "entries": entries, "owner": self.owner,
                "note": self.note}

    def publish(self) -> None:
        found = self.message()
        self._send(found if found is not None else {"kind": "overlay", "overlay": STRIP, "action": "set",
                                                    "entries": [], "owner": None, "note": ""})
