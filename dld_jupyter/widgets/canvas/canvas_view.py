"""What the canvas shows of a document, kept in step with it: the kernel half of the canvas's state.

It holds what was last sent to the browser (visible nodes, links, positions) and answers every change with a patch:
document events are applied incrementally (an edit never resends the graph); a visibility change (expand,
collapse, show constants) is recomputed and diffed (view_patch.py; the links themselves: view_links.py). Only the
view changes its state (events: view_events.py's `apply`, which it inherits). Collapsed groups stand for the nodes
inside them and links between groups are merged (ids with index -1 at a group's end).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dld_jupyter.document import Document, NodeView
from dld_jupyter.document.layout.layered_layout import layout_groups, sugiyama_layout
from dld_jupyter.document.layout.outline import Link, RawEdge, raw_edges
from dld_jupyter.document.model import ids
from dld_jupyter.document.model.endpoints import outer_values
from dld_jupyter.document.model.views import shape_list
from dld_jupyter.formats.trt_metadata import TRT_PRECISION_KEY
from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.first_view import layout_links, opens_grouped, tidy_paths
from dld_jupyter.widgets.canvas.function_bodies import Body, bodies_for, expanded_box, is_body_id
from dld_jupyter.widgets.canvas.grouping import GROUP_THRESHOLD, Grouping, GroupPath, group_id, overview_expansion
from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData, Severity
from dld_jupyter.widgets.canvas.scope_paths import ScopePaths
from dld_jupyter.widgets.canvas.structural_groups import structural_paths
from dld_jupyter.widgets.canvas.view_events import Point, ViewEvents
from dld_jupyter.widgets.canvas.view_links import read_edges, visible_links
from dld_jupyter.widgets.canvas.view_patch import patch_between
from dld_jupyter.widgets.canvas.weight_plumbing import PLUMBING_OPS, NodeRow, plumbing_nodes


@dataclass
class ViewStructure:
    """What `CanvasView.rebuild` reads from a model before it draws anything, by node id. A loading model's overview
    (preview_view.py) reads it from the file's outline in a forked child; the loaded document's view adopts it rather
    than reading the same 50,000 nodes again (the outline hands out the document's ids: outline.py)."""

    order: list[str]
    op_type: dict[str, str]
    scope_size: dict[str, int]
    plumbing: set[str]
    plumbing_feeds: dict[str, dict[int, str]]
    grouping: Grouping
    links: list[Link]


class CanvasView(ViewEvents):
    """The kernel half of one canvas's state; only its own methods change it (document events: `apply`)."""

    def __init__(self, doc: Document, grouping: str = "auto", show_constants: bool = False,
                 structure: ViewStructure | None = None) -> None:
        """`structure`: what `rebuild` would read from `doc`, read already (a loading model's overview)."""
        self.doc = doc
        self._init_state(grouping, show_constants)
        if structure is None:
            self.rebuild()
        else:
            self._adopt(structure)

    def _init_state(self, grouping: str, show_constants: bool) -> None:
        self.mode = grouping
        self.show_constants = show_constants
        self.shown_constants: set[str] = set()
        self.checked = False
        self.diagnostics: dict[str, Severity] = {}
        self.sent_nodes: dict[str, NodeData] = {}
        self.sent_edges: dict[str, EdgeData] = {}
        self.sent_pos: dict[str, Point] = {}
        self.layout_pos: dict[str, Point] = {}
        self.doc_pos: dict[str, tuple[float, float]] = {}
        self.fn_expanded: set[str] = set()  # local-function instances drawn with their body (function_bodies.py)
        self.bodies: dict[str, Body] = {}
        self.scope_size: dict[str, int] = {}

    # ------------------------------------------------------------ structure
    def rebuild(self) -> None:
        """Read the document's structure (cheap: no per-node views) and group it."""
        self.order: list[str] = []
        self.op_type: dict[str, str] = {}
        paths: dict[str, GroupPath] = {}
        self.plumbing: set[str] = set()
        self.plumbing_feeds: dict[str, dict[int, str]] = {}  # consumer -> {input index: plumbing node feeding it}
        self.scope_size = {}
        self.edges = self._read_structure(paths)
        self.find_plumbing()
        self._into: dict[str, set[str]] | None = None
        self._outof: dict[str, set[str]] | None = None
        hidden = self.plumbing | {n for n, op in self.op_type.items() if op == "Constant"}
        drawn = [n for n, op in self.op_type.items() if op not in ("Input", "Output", "Outer") and n not in hidden]
        scoped, wrappers = any(paths.values()), GroupPath()
        if scoped and self.mode != "none":  # wrapper scopes dropped, long flat stretches cut (first_view.py)
            paths, wrappers = tidy_paths(self.order, paths, self.op_type, drawn)
        enabled = self.mode == "scopes" or (
            self.mode == "auto" and (len(self.op_type) > GROUP_THRESHOLD or opens_grouped(paths, drawn)))
        labels: dict[GroupPath, str] = {}
        if enabled and not scoped:  # no name scope at all (other exporters): groups from structure
            paths, labels = structural_paths(self.order, self.op_type)
        self.grouping = Grouping(paths, enabled, wrappers)
        self.grouping.labels.update(labels)
        if enabled:  # a big model opens to its structure, not to one box "model"
            self.grouping.expand_only(overview_expansion(self.grouping, hidden))

    def _adopt(self, structure: ViewStructure) -> None:
        """What `rebuild` reads and groups, taken from `structure` (read from the same model)."""
        self.order, self.op_type, self.scope_size = structure.order, structure.op_type, structure.scope_size
        self.plumbing, self.plumbing_feeds = structure.plumbing, structure.plumbing_feeds
        self.grouping = structure.grouping
        self.edges = raw_edges(structure.links)
        self._into = self._outof = None

    def _read_structure(self, paths: dict[str, GroupPath]) -> dict[str, RawEdge]:
        doc, graph = self.doc, self.doc.model.graph
        for value in graph.inputs:
            if not value.is_initializer():
                self._register(ids.value_node_id("input", doc.value_id(value)), "Input", (), paths)
        for value in outer_values(graph):  # subgraph documents: values of the enclosing scope (outer references)
            self._register(ids.value_node_id("outer", doc.value_id(value)), "Outer", (), paths)
        scope_path = ScopePaths()
        for node in graph:
            name = node.name or ""
            self._count_scope(name)
            self._register(doc.node_id(node), node.op_type, scope_path(name, node.metadata_props), paths)
        for value in graph.outputs:
            self._register(ids.value_node_id("output", doc.value_id(value)), "Output", (), paths)
        return read_edges(doc)

    def find_plumbing(self) -> None:
        """Weight plumbing of the current graph and the inputs it feeds (after a rebuild or a model swap)."""
        graph, node_id = self.doc.model.graph, self.doc.node_id
        rows: list[NodeRow] = [(node_id(n), n.op_type, n.domain, [v.name or "" for v in n.inputs if v is not None],
                                [v.name or "" for v in n.outputs]) for n in graph if n.op_type in PLUMBING_OPS]
        self.plumbing_feeds = {}
        self._find_plumbing(rows, graph.initializers.__contains__, {v.name or "" for v in graph.outputs},
                            ((r.src, r.dst, r.di) for r in self.edges.values()))

    def _find_plumbing(self, rows: list[NodeRow], is_weight: Callable[[str], bool], outputs: set[str],
                       links: Iterable[tuple[str, str, int]]) -> None:
        """Weight plumbing (weight_plumbing.py) and which inputs it feeds (those show a mini constant)."""
        self.plumbing = plumbing = plumbing_nodes(rows, is_weight, outputs)
        for src, dst, di in links if plumbing else ():
            if src in plumbing:
                self.plumbing_feeds.setdefault(dst, {})[di] = src

    def _count_scope(self, name: str) -> None:
        """Nodes in and below each name scope: a scope of one node names that node (glyph_text.informative_name);
        `/layer1/layer1.0/Add` is in a block of seven."""
        scope = name.rpartition("/")[0]
        while scope:
            self.scope_size[scope] = self.scope_size.get(scope, 0) + 1
            scope = scope.rpartition("/")[0]

    def _register(self, node_id: str, op_type: str, path: GroupPath, paths: dict[str, GroupPath]) -> None:
        self.order.append(node_id)
        self.op_type[node_id] = op_type
        paths[node_id] = path

    def _index(self) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """Links by node, built on first need (an edit), not when a big model opens."""
        into: dict[str, set[str]] = {}
        outof: dict[str, set[str]] = {}
        for edge_id, raw in self.edges.items():
            into.setdefault(raw.dst, set()).add(edge_id)
            outof.setdefault(raw.src, set()).add(edge_id)
        self._into, self._outof = into, outof
        return into, outof

    @property
    def into(self) -> dict[str, set[str]]:
        return self._into if self._into is not None else self._index()[0]

    @property
    def outof(self) -> dict[str, set[str]]:
        return self._outof if self._outof is not None else self._index()[1]

    @property
    def grouped(self) -> bool:
        return self.grouping.enabled

    def hidden(self, node_id: str) -> bool:
        """Constants are drawn as mini constants on their consumers unless shown (seed "Layers")."""
        return (
            (node_id in self.plumbing or self.op_type.get(node_id) == "Constant")
            and not self.show_constants
            and node_id not in self.shown_constants
        )

    def vis(self, node_id: str) -> str | None:
        return None if self.hidden(node_id) else self.grouping.rep(node_id)

    # ------------------------------------------------------------ building data
    def node_data(self, node_id: str, view: NodeView | None = None) -> NodeData:
        v = view if view is not None else self.doc.node(node_id)
        shown = [
            self.edges[e].di
            for e in (self.into.get(node_id, ()) if any(t.state == "constant" for t in v.inputs) else ())
            if self.op_type.get(self.edges[e].src) == "Constant" and not self.hidden(self.edges[e].src)
        ]
        feeds = self.plumbing_feeds.get(node_id)
        weights = {i: shape for i in (feeds or {}) if i > 0 and (shape := self._weight_shape(node_id, i)) is not None}
        data = gp.node_data(
            v,
            self.grouping.parent_of(node_id),
            self.diagnostics.get(node_id),
            shown,
            weights=weights,
            own_scope=self.scope_size.get(v.name.rpartition("/")[0], 0) <= 1,
        )
        if v.kind == "op":  # the TensorRT precision badge (drawn by the overlay, clicked in overlays/tensorrt/badge.ts)
            data["precision"] = self._precision(node_id)
        if feeds:  # inputs fed by hidden weight plumbing show a mini constant, as a hidden Constant does
            for t in data["inputs"]:
                src = feeds.get(t["index"])
                if src is not None and t["state"] == "linked" and self.hidden(src):
                    t["state"] = "constant"
        return data

    def _precision(self, node_id: str) -> str | None:
        """The node's TensorRT layer precision constraint, if any."""
        node = self.doc.ir_node(node_id)
        return node.metadata_props.get(TRT_PRECISION_KEY) if node is not None else None

    def _weight_shape(self, node_id: str, index: int) -> list[int | str] | None:
        """Shape of the weight behind input `index`, through the plumbing that feeds it (an Identity's output
        often has no shape of its own in the file)."""
        node = self.doc.ir_node(node_id)
        value = node.inputs[index] if node is not None and index < len(node.inputs) else None
        for _ in range(8):
            if value is None:
                return None
            if value.shape is not None:
                return shape_list(value.shape)
            producer = value.producer()
            value = producer.inputs[0] if producer is not None and producer.inputs else None
        return None

    def group_node(self, path: GroupPath, collapsed: bool) -> NodeData:
        return gp.group_data(
            group_id(path), self.grouping.label(path), self.grouping.group_parent(path), collapsed,
            self.grouping.count.get(path, 0),
        )

    def visible_edge(self, edge_id: str) -> tuple[str, EdgeData] | None:
        raw = self.edges[edge_id]
        rs, rd = self.vis(raw.src), self.vis(raw.dst)
        if rs is None or rd is None or rs == rd:
            return None
        if rs == raw.src and rd == raw.dst:
            return edge_id, gp.edge_data(edge_id, raw.src, raw.si, raw.dst, raw.di, raw.value, raw.label)
        si = raw.si if rs == raw.src else -1
        di = raw.di if rd == raw.dst else -1
        vid = ids.edge_id(rs, si, rd, di)
        return vid, gp.edge_data(vid, rs, si, rd, di, raw.value, None)

    def compute(self) -> tuple[dict[str, NodeData], dict[str, EdgeData]]:
        """Everything visible now, groups first (parents before children), then nodes in graph order."""
        nodes: dict[str, NodeData] = {}
        for path, collapsed in self.grouping.visible_groups():
            nodes[group_id(path)] = self.group_node(path, collapsed)
        rep = {n: self.vis(n) for n in self.order}
        leaves = [n for n, r in rep.items() if r == n]
        views = self._views(leaves)
        self.doc_pos = {n: p for n in leaves if (p := views[n].position) is not None}
        for n in leaves:
            nodes[n] = self.node_data(n, views[n])
        edges = self._visible_edges(rep)
        self.fn_expanded = {n for n in self.fn_expanded if n in self.op_type}  # removed instances are forgotten
        expanded = {n: None for n in self.fn_expanded if n in nodes}
        self.bodies = bodies_for(self.doc, expanded) if expanded else {}
        for instance, body in self.bodies.items():
            nodes[instance] = expanded_box(nodes[instance], body)
            nodes.update(body.nodes)
            edges.update(body.edges)
        return nodes, edges

    def _visible_edges(self, rep: dict[str, str | None]) -> dict[str, EdgeData]:
        return visible_links(((r.src, r.si, r.dst, r.di, r.value, r.label) for r in self.edges.values()), rep)

    def _views(self, leaves: list[str]) -> dict[str, NodeView]:
        if len(leaves) > len(self.order) // 3:  # many: one batch read is cheaper than one view per node
            return {v.id: v for v in self.doc.nodes()}
        return {n: self.doc.node(n) for n in leaves}

    # ------------------------------------------------------------ positions
    def positions(self, nodes: dict[str, NodeData], edges: dict[str, EdgeData], relayout: bool) -> dict[str, Point]:
        """Positions of the visible nodes; an expanded function's body is laid out around its instance."""
        if not self.bodies:
            return self._main_positions(nodes, edges, relayout)
        main = {n: d for n, d in nodes.items() if not is_body_id(n)}
        for instance in self.bodies:  # laid out as the node it is when collapsed
            main[instance] = {**main[instance], "kind": "op", "collapsed": False}
        main_edges = {e: d for e, d in edges.items() if not is_body_id(d["source"]) and not is_body_id(d["target"])}
        pos = self._main_positions(main, main_edges, relayout)
        for instance, body in sorted(self.bodies.items(), key=lambda item: pos.get(item[0], (0.0, 0.0))[1]):
            centre = pos.get(instance, (0.0, 0.0))
            # Make room: what is above the instance moves up, what is below moves down, by the body's extra height.
            dy = max(0.0, (body.height - main[instance]["height"]) / 2 + 40.0)
            for n, (x, y) in pos.items():
                if n != instance and n in main:
                    pos[n] = (x, y + dy) if y > centre[1] else (x, y - dy) if y < centre[1] else (x, y)
            pos.update(body.placed(centre))
        return pos

    def _main_positions(
        self, nodes: dict[str, NodeData], edges: dict[str, EdgeData], relayout: bool
    ) -> dict[str, Point]:
        if self.grouped:
            return self._group_positions(nodes, edges)
        doc_pos = self.doc_pos if relayout else {}
        missing = [n for n in nodes if n not in doc_pos and n not in self.layout_pos]
        if missing:
            sizes = {n: (d["width"], d["height"]) for n, d in nodes.items()}
            self.layout_pos = sugiyama_layout(list(nodes), [(e["source"], e["target"]) for e in edges.values()], sizes)
        return {n: doc_pos.get(n) or self.layout_pos.get(n, (0.0, 0.0)) for n in nodes}

    def _group_positions(self, nodes: dict[str, NodeData], edges: dict[str, EdgeData]) -> dict[str, Point]:
        items = [n for n, d in nodes.items() if not (d["kind"] == "group" and not d["collapsed"])]
        groups: dict[str, GroupPath] = {}
        for n in items:
            d = nodes[n]
            if d["kind"] == "group":
                groups[n] = self.grouping.by_id[n][:-1]
            else:
                groups[n] = self.grouping.path.get(n, ())
        sizes = {n: (nodes[n]["width"], nodes[n]["height"]) for n in items}
        found = layout_groups(items, layout_links(nodes, edges.values()), sizes, groups, padding=gp.GROUP_PADDING)
        return dict(found.positions)

    # ------------------------------------------------------------ snapshot and diffs
    def snapshot(self, relayout: bool = True) -> tuple[list[NodeData], list[EdgeData], list[Point]]:
        nodes, edges = self.compute()
        pos = self.positions(nodes, edges, relayout)
        self.sent_nodes, self.sent_edges, self.sent_pos = nodes, edges, pos
        return list(nodes.values()), list(edges.values()), [pos.get(n, (0.0, 0.0)) for n in nodes]

    def resync(self) -> gp.PatchBuilder:
        """Recompute what is visible (after expand/collapse/constants/arrange) and diff it against what was sent."""
        nodes, edges = self.compute()
        pos = self.positions(nodes, edges, relayout=True)
        pb = patch_between((self.sent_nodes, self.sent_edges, self.sent_pos), (nodes, edges, pos))
        self.sent_nodes, self.sent_edges, self.sent_pos = nodes, edges, pos
        return pb
