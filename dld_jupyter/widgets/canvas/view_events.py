"""Document events -> a canvas patch, incrementally: only the nodes and links an edit touched are rebuilt.

CanvasView changes its own state: it inherits ViewEvents from here (document events: `apply`; the user's
visibility changes: `set_expanded`, `toggle_constant`, `set_show_constants`, `expand_to`; a loading model's
overview handed over: `take_over`), so nothing outside the view rewrites it (this module keeps the view's module
under 400 lines). Order in the patch follows what the browser can apply: links removed, nodes removed, nodes
added, nodes updated, links added, positions. Merged links into a collapsed group are reference-counted by the
raw links they stand for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

from dld_jupyter.document import (
    DiagnosticsChanged,
    Document,
    DocumentError,
    EdgesAdded,
    EdgesRemoved,
    Event,
    NodesAdded,
    NodesChanged,
    NodesMoved,
    NodesRemoved,
)
from dld_jupyter.document.layout.outline import RawEdge
from dld_jupyter.document.model.ids import GROUP_PREFIX, parse_edge_id
from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.function_bodies import function_of
from dld_jupyter.widgets.canvas.grouping import Grouping, GroupPath, group_id
from dld_jupyter.widgets.canvas.scope_paths import ScopePaths

if TYPE_CHECKING:
    from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData, Severity

PLACE_GAP = 90.0
Point = tuple[float, float]


class ViewState(Protocol):
    """What applying events reads and changes of a CanvasView (canvas_view.py makes and documents each)."""

    doc: Document
    edges: dict[str, RawEdge]
    grouping: Grouping
    op_type: dict[str, str]
    order: list[str]
    plumbing: set[str]
    plumbing_feeds: dict[str, dict[int, str]]
    checked: bool
    diagnostics: dict[str, Severity]
    sent_nodes: dict[str, NodeData]
    sent_edges: dict[str, EdgeData]
    sent_pos: dict[str, Point]
    layout_pos: dict[str, Point]
    fn_expanded: set[str]
    show_constants: bool
    shown_constants: set[str]

    @property
    def into(self) -> dict[str, set[str]]: ...
    @property
    def outof(self) -> dict[str, set[str]]: ...
    def vis(self, node_id: str) -> str | None: ...
    def node_data(self, node_id: str) -> NodeData: ...
    def group_node(self, path: GroupPath, collapsed: bool) -> NodeData: ...
    def visible_edge(self, edge_id: str) -> tuple[str, EdgeData] | None: ...
    def resync(self) -> gp.PatchBuilder: ...
    def find_plumbing(self) -> None: ...
    def compute(self) -> tuple[dict[str, NodeData], dict[str, EdgeData]]: ...
    def positions(self, nodes: dict[str, NodeData], edges: dict[str, EdgeData], relayout: bool) -> dict[str, Point]: ...


class ViewEvents:
    """CanvasView's half that applies document events to the view's own state (CanvasView inherits it)."""

    def apply(self: ViewState, events: Iterable[Event]) -> gp.PatchBuilder:
        """Document events -> one patch touching only what changed (an expanded local function that changed or
        moved is redrawn whole: its box and body)."""
        events = list(events)
        patch = _apply_events(self, events)
        if not self.fn_expanded:  # the common case: nothing more to look at
            return patch
        touched = {n for e in events for n in (getattr(e, "node_ids", None) or getattr(e, "positions", None) or ())}
        if touched & self.fn_expanded:
            patch.extend(self.resync())
        return patch

    def set_expanded(self: ViewState, element: str, expanded: bool) -> gp.PatchBuilder:
        """Expand or collapse a name-scope group, or a local-function instance (its body drawn in place)."""
        path = self.grouping.by_id.get(element)
        if path is not None:
            (self.grouping.expand if expanded else self.grouping.collapse)(path)
        elif function_of(self.doc, element) is not None:
            (self.fn_expanded.add if expanded else self.fn_expanded.discard)(element)
        else:
            raise DocumentError(f"Expand {element}", "no such group.", "Use a group id from the canvas.")
        return self.resync()

    def toggle_constant(self: ViewState, node: str, index: int) -> gp.PatchBuilder:
        """Draw the Constant or the weight plumbing (an Identity of a weight...) feeding input `index` of `node` as
        a node, or hide it again."""
        source = self.plumbing_feeds.get(node, {}).get(index)
        if source is None:
            source = next((raw.src for raw in (self.edges[e] for e in self.into.get(node, set()))
                           if raw.di == index and self.op_type.get(raw.src) == "Constant"), None)
        if source is None:
            raise DocumentError("Show constant", f"input {index} of {node} is not fed by a Constant.", "")
        self.shown_constants ^= {source}
        return self.resync()

    def set_show_constants(self: ViewState, show: bool) -> gp.PatchBuilder:
        self.show_constants = show
        self.shown_constants.clear()
        return self.resync()

    def expand_to(self: ViewState, node_ids: Iterable[str]) -> gp.PatchBuilder | None:
        """Expand the groups around these nodes: the patch, or None when each was visible already."""
        changed = False
        for n in node_ids:
            changed |= self.grouping.expand_to(n)
        return self.resync() if changed else None

    def take_over(self: ViewState, nodes: list[NodeData], edges: list[EdgeData], points: list[Point],
                  layout_pos: dict[str, Point]) -> None:
        """What another view (a loading model's overview) sent is what this one has sent: its next resync
        corrects only the difference."""
        self.sent_nodes = {n["id"]: n for n in nodes}
        self.sent_edges = {e["id"]: e for e in edges}
        self.sent_pos = {n["id"]: p for n, p in zip(nodes, points, strict=True)}
        self.layout_pos = dict(layout_pos)


def _apply_events(view: ViewState, events: list[Event]) -> gp.PatchBuilder:
    doc = view.doc
    touched: dict[str, None] = {}  # nodes (and groups) whose NodeData may have changed
    gone_edges: set[str] = set()
    new_edges: dict[str, None] = {}
    moved: dict[str, Point] = {}
    twins: dict[str, str] = {}
    relabel = False
    scope_path = ScopePaths()
    left: dict[str, GroupPath] = {}  # removed nodes' groups, for their twins
    for event in events:
        if isinstance(event, EdgesRemoved):
            for eid in event.edge_ids:
                raw = view.edges.pop(eid, None)
                if raw is None:
                    continue
                view.into.get(raw.dst, set()).discard(eid)
                view.plumbing_feeds.get(raw.dst, {}).pop(raw.di, None)
                view.outof.get(raw.src, set()).discard(eid)
                gone_edges.add(eid)
                new_edges.pop(eid, None)
                touched.update({raw.src: None, raw.dst: None})
        elif isinstance(event, NodesRemoved):
            for nid in event.node_ids:
                path = left[nid] = view.grouping.remove(nid)
                view.op_type.pop(nid, None)
                if nid in view.order:
                    view.order.remove(nid)
                touched[nid] = None
                touched.update({group_id(path[:d]): None for d in range(1, len(path) + 1)})
        elif isinstance(event, NodesAdded):
            twins.update(event.twins)
            for nid in event.node_ids:
                node = doc.node(nid)
                view.order.append(nid)
                view.op_type[nid] = node.op_type if node.kind == "op" else node.kind.title()
                # The scope a rebuild would give it, from the exporter's metadata too: by its name alone, every node
                # of a torch.export model (named node_*) swapped in by Sanitize/FP16 or their Undo lost its group.
                twin = event.twins.get(nid)
                if twin is not None and twin in left:  # a swapped-in model's node: in the group its twin was in
                    path = view.grouping.place(nid, left[twin])
                else:
                    ir_node = doc.ir_node(nid) if node.kind == "op" else None
                    meta = ir_node.metadata_props if ir_node is not None else {}
                    path = view.grouping.add(nid, scope_path(node.name, meta) if node.kind == "op" else ())
                touched[nid] = None
                touched.update({group_id(path[:d]): None for d in range(1, len(path) + 1)})
        elif isinstance(event, NodesChanged):
            touched.update(dict.fromkeys(event.node_ids))
        elif isinstance(event, EdgesAdded):
            for eid in event.edge_ids:
                src, si, dst, di = parse_edge_id(eid)
                value = _value_name(view, dst, di)
                view.edges[eid] = RawEdge(src, si, dst, di, value, None)
                view.into.setdefault(dst, set()).add(eid)
                view.outof.setdefault(src, set()).add(eid)
                if src in view.plumbing:  # a new use of hidden weight plumbing: a mini constant there too
                    view.plumbing_feeds.setdefault(dst, {})[di] = src
                gone_edges.discard(eid)
                new_edges[eid] = None
                touched.update({src: None, dst: None})
        elif isinstance(event, NodesMoved):
            moved.update({n: (float(x), float(y)) for n, (x, y) in event.positions.items()})
        elif isinstance(event, DiagnosticsChanged):
            _refresh_checks(view, touched)
            relabel = True
    if twins:  # a swapped model (Sanitize, FP16, their undo): weights and plumbing are the new model's
        old_plumbing, old_feeds = view.plumbing, view.plumbing_feeds
        view.find_plumbing()
        touched.update(dict.fromkeys(old_plumbing ^ view.plumbing))
        touched.update(dict.fromkeys(n for n in set(old_feeds) | set(view.plumbing_feeds)
                                     if old_feeds.get(n) != view.plumbing_feeds.get(n) and n in view.op_type))
    return _emit(view, touched, moved, relabel, twins)


def _value_name(view: ViewState, dst: str, di: int) -> str:
    try:
        node = view.doc.node(dst)
    except Exception:
        return ""
    for t in node.inputs:
        if t.index == di:
            return t.value_name or ""
    return ""


def _refresh_checks(view: ViewState, touched: dict[str, None]) -> None:
    """After a check: diagnostics badges and inferred shapes on links."""
    view.checked = True
    old = view.diagnostics
    view.diagnostics = gp.worst_diagnostics(view.doc.diagnostics)
    touched.update(dict.fromkeys(n for n in set(old) | set(view.diagnostics) if old.get(n) != view.diagnostics.get(n)))
    # A Constant's output shape is known once inferred: its consumers' detail line (`W 64×3`) may say more now.
    touched.update(dict.fromkeys(raw.dst for raw in view.edges.values() if view.op_type.get(raw.src) == "Constant"))
    for e in view.doc.edges():
        raw = view.edges.get(e.id)
        if raw is not None:
            raw.label = gp.edge_label(e, True)


def _emit(
    view: ViewState, touched: dict[str, None], moved: dict[str, Point], relabel: bool, twins: dict[str, str]
) -> gp.PatchBuilder:
    """Recompute the touched parts, diff them against what the browser has."""
    sent_n, sent_e = view.sent_nodes, view.sent_edges
    want_n: dict[str, NodeData | None] = {}
    for nid in touched:
        if nid.startswith(GROUP_PREFIX):
            path = view.grouping.by_id.get(nid)
            visible = path is not None and view.grouping.open_depth(path[:-1]) == len(path) - 1
            want_n[nid] = view.group_node(path, path not in view.grouping.expanded) if visible and path else None
        elif nid in view.op_type and view.vis(nid) == nid:
            want_n[nid] = view.node_data(nid)
        else:
            want_n[nid] = None
    # Links: every raw link at a touched node (or a changed label) decides its visible link again.
    want_e: dict[str, EdgeData] = {}
    candidates: set[str] = set(view.edges) if relabel else set()
    for nid in touched:
        candidates |= view.into.get(nid, set()) | view.outof.get(nid, set())
    for eid in candidates:
        found = view.visible_edge(eid)
        if found is not None:
            want_e.setdefault(found[0], found[1])
    stale_e = [e for e, d in sent_e.items() if _ends_touched(d, touched, relabel) and e not in want_e]
    pb = gp.PatchBuilder()
    removed_n = [n for n, d in want_n.items() if d is None and n in sent_n]
    gone = set(removed_n)
    stale_e += [e for e, d in sent_e.items() if (d["source"] in gone or d["target"] in gone) and e not in stale_e]
    pb.remove_edges(stale_e)
    pb.remove_nodes(removed_n)
    added = [d for n, d in want_n.items() if d is not None and n not in sent_n]
    shown = {n: view.sent_pos[n] for n in removed_n if n in view.sent_pos}
    positions = _placements(view, added, shown, twins)
    pb.add_nodes(added, positions)
    pb.update_nodes([d for n, d in want_n.items() if d is not None and n in sent_n and sent_n[n] != d])
    pb.add_edges([d for e, d in want_e.items() if e not in sent_e])
    pb.update_edges([d for e, d in want_e.items() if e in sent_e and sent_e[e] != d])
    for e in pb.ids("remove_edges"):
        sent_e.pop(e, None)
    for n in removed_n:
        sent_n.pop(n, None)
        view.sent_pos.pop(n, None)
    sent_n.update({d["id"]: d for d in added})
    sent_n.update({n: d for n, d in want_n.items() if d is not None})
    sent_e.update(want_e)
    view.sent_pos.update(positions)
    shown_moves = {n: p for n, p in moved.items() if n in sent_n and n not in positions}
    view.sent_pos.update(shown_moves)
    pb.move(shown_moves)
    return pb


def _ends_touched(d: EdgeData, touched: dict[str, None], relabel: bool) -> bool:
    return relabel or d["source"] in touched or d["target"] in touched


def _placements(
    view: ViewState, added: list[NodeData], removed: dict[str, Point], twins: dict[str, str]
) -> dict[str, Point]:
    """Where the added nodes appear, in this order: the position stored in the model; where its twin was (the node
    removed in the same step that it stands for, NodesAdded.twins: a model swap, Sanitize or FP16 in place and
    their Undo, replaces every node object, and the layout the user saw stays though the model stored none of it);
    next to a placed node it is linked to; else where the view's layout puts it. Before, a swapped model's nodes
    all landed on (0, 0): a blank canvas after Sanitize, the I/O diamonds on one spot after its Undo."""
    out: dict[str, Point] = {}
    loose: list[str] = []
    for d in added:
        twin = twins.get(d["id"])
        pos = _stored(view, d["id"]) or (removed.get(twin) if twin else None)
        if pos is None:
            loose.append(d["id"])
        else:
            out[d["id"]] = pos
    taken = {p for n, p in view.sent_pos.items() if n not in removed} | set(out.values())
    unplaced = [nid for nid in loose if not _beside(view, nid, out, removed, taken)]
    if unplaced:
        nodes, edges = view.compute()
        laid = view.positions(nodes, edges, relayout=True)
        out.update({nid: laid.get(nid, (0.0, 0.0)) for nid in unplaced})
    return out


def _stored(view: ViewState, nid: str) -> Point | None:
    try:
        pos = view.doc.node(nid).position if not nid.startswith(GROUP_PREFIX) else None
    except Exception:
        pos = None
    return None if pos is None else (float(pos[0]), float(pos[1]))


def _beside(view: ViewState, nid: str, out: dict[str, Point], gone: Mapping[str, object], taken: set[Point]) -> bool:
    """Place `nid` next to a node it is linked to that has a place (shown and staying, or placed in this patch), to
    the right of what already stands there (two graph inputs of one node never share a spot)."""
    for raw in view.edges.values():
        if raw.src == nid:
            other, dy = raw.dst, -PLACE_GAP
        elif raw.dst == nid:
            other, dy = raw.src, PLACE_GAP
        else:
            continue
        at = out.get(other) or (view.sent_pos.get(other) if other not in gone else None)
        if at is not None:
            spot = (at[0], at[1] + dy)
            while spot in taken:
                spot = (spot[0] + PLACE_GAP * 1.5, spot[1])
            out[nid] = spot
            taken.add(spot)
            return True
    return False
