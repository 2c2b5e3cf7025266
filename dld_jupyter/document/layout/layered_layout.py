"""Node positions for "Arrange Nodes": a layered (Sugiyama) layout, inputs on top, outputs at the bottom.

python-igraph's C core does layering (cycles broken by a feedback arc set) and crossing reduction; this module
only turns its unit grid into canvas coordinates that respect each node's width and height. Positions are node
centres; the drawing's top-left corner is (0, 0). Disconnected components are laid out apart, side by side.
`layout_groups` lays out name-scope groups (`/encoder/layer.3/...`) as boxes, each group's content on its own,
so a 50,000-node model can open collapsed.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence

import igraph

from dld_jupyter.document.layout.layer_order import order_and_place

Size = tuple[float, float]
Point = tuple[float, float]
GroupPath = tuple[str, ...]

DEFAULT_SIZE: Size = (160.0, 40.0)
LAYER_GAP = 40.0
NODE_GAP = 24.0
COMPONENT_GAP = 64.0
LAYERING_MAX = 5000
REFINE_MAX = 3000  # crossing reduction and placement in layer_order.py: ~0.1 s per 1,000 vertices


def _max_iterations(count: int) -> int:
    # Crossing reduction dominates the cost: full effort on small graphs, about 0.2 s at 20,000 nodes.
    return max(8, min(100, 200_000 // max(count, 1)))


def _layers(graph: igraph.Graph) -> list[int] | None:
    """Layer of each vertex of a DAG (None for a cyclic graph: igraph breaks its cycles itself; and above
    LAYERING_MAX vertices, where these Python loops cost 0.3 s at 20k and such a view is read as an overview).

    Longest path from the top, then every vertex with one consumer moves down to the layer just above it: a
    graph input or a shown constant that feeds one node deep in the graph sits beside that node, not in a row of
    sources at the top with links crossing the whole drawing (torchvision's ResNet-18 opened that way).
    """
    if graph.vcount() > LAYERING_MAX or not graph.is_dag():  # links lifted to groups can make cycles
        return None
    order = graph.topological_sorting(mode="out")
    count = graph.vcount()
    preds: list[list[int]] = [[] for _ in range(count)]
    succs: list[list[int]] = [[] for _ in range(count)]
    for a, b in graph.get_edgelist():  # one call, not one neighbors() per vertex (20k nodes)
        preds[b].append(a)
        succs[a].append(b)
    layer = [0] * count
    for v in order:
        if preds[v]:
            layer[v] = max(layer[u] for u in preds[v]) + 1
    for v in reversed(order):
        if len(succs[v]) == 1:
            layer[v] = layer[succs[v][0]] - 1
    _shorten_spans(layer, preds, succs)
    return layer


def _shorten_spans(layer: list[int], preds: Sequence[list[int]], succs: Sequence[list[int]]) -> None:
    """Move each vertex with inputs and outputs to the layer, between its inputs and outputs, where its links
    span the fewest layers (longest-path layering stacks a side branch as high as it can, so its links pass many
    layers and cross whatever they pass: BERT-tiny's mask and position branches). A few passes; ties stay put."""
    for _ in range(3):
        moved = False
        for v, (above, below) in enumerate(zip(preds, succs, strict=True)):
            if not above or not below:
                continue
            low, high = max(layer[u] for u in above) + 1, min(layer[w] for w in below) - 1
            if low >= high:
                continue
            # spans = (n_in - n_out) * L + const: the end of the range the majority of links pull towards
            pull = len(above) - len(below)
            best = low if pull > 0 else high if pull < 0 else min(max(layer[v], low), high)
            if best != layer[v]:
                layer[v], moved = best, True
        if not moved:
            break


def _sugiyama(graph: igraph.Graph, maxiter: int, layers: list[int] | None) -> list[list[float]]:
    """Unit-grid coordinates of the graph's vertices (x: order in the layer, y: layer index)."""
    raw = getattr(igraph.GraphBase, "_layout_sugiyama", None)
    if raw is None:  # the public wrapper copies every row into a Layout: a third of the time at 20k nodes
        return list(graph.layout_sugiyama(layers=layers, maxiter=maxiter).coords)
    coords, _ = raw(graph, layers, None, 1, 1, maxiter)
    return list(coords[: graph.vcount()])


def _component_layout(
    graph: igraph.Graph, sizes: Sequence[Size], layer_gap: float, node_gap: float, effort: int
) -> tuple[list[Point], Size]:
    """Centres of one connected component, top-left at (0, 0), and the size of its bounding box."""
    count = graph.vcount()
    if count == 1:
        width, height = sizes[0]
        return [(width / 2, height / 2)], (width, height)
    given = _layers(graph)
    coords = _sugiyama(graph, _max_iterations(max(count, effort)), given)
    layers: dict[int, list[int]] = defaultdict(list)
    for index, (_, y) in enumerate(coords):
        layers[round(y)].append(index)
    if given is not None and count <= REFINE_MAX:
        xs = order_and_place(given, graph.get_edgelist(), sizes, [c[0] for c in coords], node_gap, layer_gap)
        return _stacked(xs, layers, sizes, layer_gap)
    unit = sum(w for w, _ in sizes) / count + node_gap  # one grid step = an average node and a gap
    xs = [0.0] * count
    for members in layers.values():
        if len(members) == 1:  # chains give many one-node layers: nothing to push apart
            xs[members[0]] = coords[members[0]][0] * unit
            continue
        members.sort(key=lambda i: coords[i][0])
        right = float("-inf")  # right edge of the previous node in this layer, gap included
        for i in members:
            half = sizes[i][0] / 2
            xs[i] = max(coords[i][0] * unit, right + half)
            right = xs[i] + half + node_gap
        # Pushing only rightwards drifts wide layers off their edges; shift the layer back as a whole.
        drift = sum(xs[i] - coords[i][0] * unit for i in members) / len(members)
        for i in members:
            xs[i] -= drift
    left = min(xs[i] - sizes[i][0] / 2 for i in range(count))
    return _stacked([x - left for x in xs], layers, sizes, layer_gap)


def _stacked(
    xs: Sequence[float], layers: Mapping[int, list[int]], sizes: Sequence[Size], layer_gap: float
) -> tuple[list[Point], Size]:
    """Centres from x (leftmost edge at 0) and layers stacked top-down, each as tall as its tallest node."""
    count = len(xs)
    top = 0.0
    ys = [0.0] * count
    for layer in sorted(layers):
        members = layers[layer]
        height = sizes[members[0]][1] if len(members) == 1 else max(sizes[i][1] for i in members)
        for i in members:
            ys[i] = top + height / 2
        top += height + layer_gap
    points = [(round(xs[i], 2), ys[i]) for i in range(count)]  # what the file keeps (metadata.py: 2 decimals)
    width = max(points[i][0] + sizes[i][0] / 2 for i in range(count))
    return points, (width, top - layer_gap)


def _layered(
    count: int,
    edges: Iterable[tuple[int, int]],
    sizes: Sequence[Size],
    layer_gap: float,
    node_gap: float,
    effort: int = 0,
) -> tuple[list[Point], Size]:
    """Layout of `count` items given as indices; components side by side, in order of first appearance.

    `effort` is the size of the whole drawing: crossing reduction is cut back on big ones, group by group.
    """
    if count == 0:
        return [], (0.0, 0.0)
    unique = {(a, b) for a, b in edges if a != b and 0 <= a < count and 0 <= b < count}
    graph = igraph.Graph(n=count, edges=list(unique), directed=True)
    components = graph.connected_components(mode="weak")  # numbered by their first vertex
    if len(components) == 1:
        return _component_layout(graph, sizes, layer_gap, node_gap, effort)
    points: list[Point] = [(0.0, 0.0)] * count
    left, total_height = 0.0, 0.0
    for group in components:
        part = graph.induced_subgraph(group) if len(group) > 1 else igraph.Graph(n=1, directed=True)
        placed, (width, height) = _component_layout(part, [sizes[i] for i in group], layer_gap, node_gap, effort)
        for index, (x, y) in zip(group, placed, strict=True):  # induced subgraphs keep the vertex order
            points[index] = (x + left, y)
        left += width + COMPONENT_GAP
        total_height = max(total_height, height)
    return points, (left - COMPONENT_GAP, total_height)


def sugiyama_layout(
    node_ids: Sequence[str],
    edges: Iterable[tuple[str, str]],
    sizes: Mapping[str, Size] | None = None,
    *,
    layer_gap: float = LAYER_GAP,
    node_gap: float = NODE_GAP,
) -> dict[str, Point]:
    """Centre of every node: producers above consumers, no two nodes of a layer overlapping.

    `sizes` gives (width, height) per node (`DEFAULT_SIZE` when missing); edges to unknown ids are ignored.
    """
    index = {node_id: i for i, node_id in enumerate(node_ids)}
    sizes = sizes or {}
    pairs = [(index[a], index[b]) for a, b in edges if a in index and b in index]
    points, _ = _layered(len(node_ids), pairs, [sizes.get(n, DEFAULT_SIZE) for n in node_ids], layer_gap, node_gap)
    return dict(zip(node_ids, points, strict=True))


@dataclasses.dataclass(frozen=True)
class GroupedLayout:
    """Node centres (absolute) and group boxes as (centre x, centre y, width, height) per group path."""

    positions: dict[str, Point]
    boxes: dict[GroupPath, tuple[float, float, float, float]]


@dataclasses.dataclass
class _Level:
    """One group's direct content: its nodes and child groups, and the edges lifted between them."""

    items: list[str | GroupPath] = dataclasses.field(default_factory=list)
    edges: set[tuple[int, int]] = dataclasses.field(default_factory=set)
    index: dict[str | GroupPath, int] = dataclasses.field(default_factory=dict)
    relative: list[Point] = dataclasses.field(default_factory=list)
    content: Size = (0.0, 0.0)

    def slot(self, item: str | GroupPath) -> int:
        found = self.index.get(item)
        if found is None:
            found = self.index[item] = len(self.items)
            self.items.append(item)
        return found


def layout_groups(
    node_ids: Sequence[str],
    edges: Iterable[tuple[str, str]],
    sizes: Mapping[str, Size] | None = None,
    groups: Mapping[str, GroupPath] | None = None,
    *,
    collapsed: Collection[GroupPath] = (),
    collapsed_size: Size = DEFAULT_SIZE,
    padding: float = 16.0,
    header: float = 28.0,
    layer_gap: float = LAYER_GAP,
    node_gap: float = NODE_GAP,
) -> GroupedLayout:
    """Layout with compound nodes: each group's children are laid out on their own, then groups as boxes.

    `groups` maps a node id to its group path (`("encoder", "layer.3")`; missing or `()`: top level). A
    collapsed group is a box of `collapsed_size`; its children still get positions, centred on the box, for
    when it is expanded. Edges between groups are lifted to the closest common level.
    """
    sizes = sizes or {}
    groups = groups or {}
    levels: dict[GroupPath, _Level] = defaultdict(_Level)
    path_of = {node_id: tuple(groups.get(node_id, ())) for node_id in node_ids}
    for node_id, path in path_of.items():
        if path not in levels:  # first sight of this group: register its ancestor chain, so boxes nest
            for depth in range(len(path), 0, -1):
                levels[path[: depth - 1]].slot(path[:depth])
        levels[path].slot(node_id)
    for a, b in edges:
        path_a, path_b = path_of.get(a), path_of.get(b)
        if path_a is None or path_b is None or a == b:
            continue
        if path_a == path_b:  # the common case: both ends in one group
            level = levels[path_a]
            level.edges.add((level.index[a], level.index[b]))
            continue
        common = 0
        while common < min(len(path_a), len(path_b)) and path_a[common] == path_b[common]:
            common += 1
        level = levels[path_a[:common]]
        item_a = a if len(path_a) == common else path_a[: common + 1]
        item_b = b if len(path_b) == common else path_b[: common + 1]
        if item_a != item_b:
            level.edges.add((level.slot(item_a), level.slot(item_b)))
    box_size: dict[GroupPath, Size] = {}
    for path in sorted(levels, key=len, reverse=True):  # innermost first: a box's size is its content's
        level = levels[path]
        item_sizes = [
            (collapsed_size if item in collapsed else box_size[item])
            if isinstance(item, tuple)
            else sizes.get(item, DEFAULT_SIZE)
            for item in level.items
        ]
        level.relative, level.content = _layered(
            len(level.items), level.edges, item_sizes, layer_gap, node_gap, effort=len(node_ids)
        )
        box_size[path] = (level.content[0] + 2 * padding, level.content[1] + 2 * padding + header)
    positions: dict[str, Point] = {}
    boxes: dict[GroupPath, tuple[float, float, float, float]] = {}
    _place(levels, (), (0.0, 0.0), collapsed, collapsed_size, box_size, positions, boxes, padding, header)
    return GroupedLayout(positions, boxes)


def _place(
    levels: Mapping[GroupPath, _Level],
    path: GroupPath,
    origin: Point,
    collapsed: Collection[GroupPath],
    collapsed_size: Size,
    box_size: Mapping[GroupPath, Size],
    positions: dict[str, Point],
    boxes: dict[GroupPath, tuple[float, float, float, float]],
    padding: float,
    header: float,
) -> None:
    """Turn the relative positions of `path`'s content into absolute ones, recursively (top-down)."""
    stack = [(path, origin)]
    while stack:
        current, (ox, oy) = stack.pop()
        level = levels[current]
        for item, (x, y) in zip(level.items, level.relative, strict=True):
            cx, cy = ox + x, oy + y
            if not isinstance(item, tuple):
                positions[item] = (cx, cy)
                continue
            width, height = box_size[item]
            if item in collapsed:  # the expanded content is centred on the collapsed box
                boxes[item] = (cx, cy, *collapsed_size)
            else:
                boxes[item] = (cx, cy, width, height)
            stack.append((item, (cx - width / 2 + padding, cy - height / 2 + padding + header)))
