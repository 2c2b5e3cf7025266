"""Typed events that a Document sends to its subscribers, one list per committed command, undo or redo.

Within one list the order is fixed so a view can apply it as a patch: EdgesRemoved, NodesRemoved, NodesAdded,
NodesChanged, EdgesAdded, NodesMoved, InitializersChanged, ModelInfoChanged, DiagnosticsChanged, DirtyChanged.
An edge whose value changed (renamed, retyped) is reported removed and added again under the same id.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NodesAdded:
    node_ids: list[str]
    # added id -> the id of the node removed in the same step that it stands for (same persistent key): a whole
    # model swapped in (ReplaceModel) keeps what views showed of each node, its place first
    twins: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NodesRemoved:
    node_ids: list[str]


@dataclass(frozen=True)
class NodesChanged:
    node_ids: list[str]


@dataclass(frozen=True)
class EdgesAdded:
    edge_ids: list[str]


@dataclass(frozen=True)
class EdgesRemoved:
    edge_ids: list[str]


@dataclass(frozen=True)
class NodesMoved:
    positions: dict[str, tuple[float, float]]


@dataclass(frozen=True)
class InitializersChanged:
    value_ids: list[str]


@dataclass(frozen=True)
class ModelInfoChanged:
    pass


@dataclass(frozen=True)
class DirtyChanged:
    dirty: bool


@dataclass(frozen=True)
class DiagnosticsChanged:
    pass


@dataclass(frozen=True)
class ReadOnlyChanged:
    """A child document opened on this one, or the last one closed: ``reason`` is ``Document.read_only`` now.
    Sent alone."""

    reason: str | None


Event = (
    NodesAdded
    | NodesRemoved
    | NodesChanged
    | EdgesAdded
    | EdgesRemoved
    | NodesMoved
    | InitializersChanged
    | ModelInfoChanged
    | DirtyChanged
    | DiagnosticsChanged
    | ReadOnlyChanged
)


@dataclass
class Changes:
    """What the commands of one step did, netted out, turned into events at commit."""

    # id -> [present before the step, present now]
    nodes: dict[str, list[bool]] = field(default_factory=dict)
    edges: dict[str, list[bool]] = field(default_factory=dict)
    changed: dict[str, None] = field(default_factory=dict)
    moved: dict[str, tuple[float, float] | None] = field(default_factory=dict)
    initializers: dict[str, None] = field(default_factory=dict)
    model_info: bool = False
    twins: dict[str, str] = field(default_factory=dict)  # see NodesAdded.twins

    def node(self, node_id: str, present_before: bool, present_now: bool) -> None:
        state = self.nodes.setdefault(node_id, [present_before, present_now])
        state[1] = present_now

    def edge(self, edge_id: str, present_before: bool, present_now: bool) -> None:
        state = self.edges.setdefault(edge_id, [present_before, present_now])
        state[1] = present_now

    def events(self) -> list[Event]:
        out: list[Event] = []
        removed_edges = [e for e, (before, _now) in self.edges.items() if before]
        added_edges = [e for e, (_before, now) in self.edges.items() if now]
        removed = [n for n, (before, now) in self.nodes.items() if before and not now]
        added = [n for n, (before, now) in self.nodes.items() if now and not before]
        living = {n for n, (_before, now) in self.nodes.items() if now}
        changed = [n for n in self.changed if n not in self.nodes or (n in living and self.nodes[n][0])]
        moved = {n: p for n, p in self.moved.items() if p is not None and n not in removed}
        if removed_edges:
            out.append(EdgesRemoved(removed_edges))
        if removed:
            out.append(NodesRemoved(removed))
        if added:
            gone = set(removed)
            out.append(NodesAdded(added, {n: t for n, t in self.twins.items() if n in added and t in gone}))
        for kind, items in ((NodesChanged, changed), (EdgesAdded, added_edges)):
            if items:
                out.append(kind(items))
        if moved:
            out.append(NodesMoved(moved))
        if self.initializers:
            out.append(InitializersChanged(list(self.initializers)))
        if self.model_info:
            out.append(ModelInfoChanged())
        return out


Subscriber = Callable[[list[Event]], None]


class Subscribers:
    """Who hears a document's events, in subscription order (a callback may unsubscribe while it is called)."""

    def __init__(self) -> None:
        self._callbacks: list[Subscriber] = []

    def add(self, callback: Subscriber) -> Callable[[], None]:
        """Subscribe ``callback``; returns the unsubscriber."""
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return unsubscribe

    def emit(self, events: list[Event]) -> None:
        if events:
            for callback in list(self._callbacks):
                callback(events)
