"""Name-scope groups for big models: which node or collapsed group stands for each node on the canvas.

A model above GROUP_THRESHOLD (500) nodes opens with every group collapsed, so the browser only creates the elements
the user can see (cytoscape's cost is per element: ../shared/BROWSER.md). Groups come from name scopes
(`/encoder/layer.3/attn/MatMul_2` is in ("encoder", "layer.3", "attn")); a level with more than MAX_CHILDREN child
groups is split into range buckets ("#0": "block0 … block39") so no overview shows thousands of boxes.
Pure data: the canvas turns it into NodeData and patches.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from dld_jupyter.document.model.ids import GROUP_PREFIX
from dld_jupyter.widgets.canvas.first_view import blocks_shown, is_run, without_wrappers

GroupPath = tuple[str, ...]

GROUP_THRESHOLD = 500
MAX_CHILDREN = 40
BUCKET = "#"


def group_id(path: GroupPath) -> str:
    return GROUP_PREFIX + "/".join(path)


class Grouping:
    """Group tree over node ids with an expanded set. Disabled grouping puts every node at the top level."""

    def __init__(self, raw_paths: Mapping[str, GroupPath], enabled: bool = True, wrappers: GroupPath = ()) -> None:
        self.enabled = enabled
        self.wrappers = wrappers  # root scopes dropped from every path (first_view.wrapper_roots)
        self.path: dict[str, GroupPath] = {}
        self.count: dict[GroupPath, int] = {}
        self.labels: dict[GroupPath, str] = {}
        self.by_id: dict[str, GroupPath] = {}
        self.expanded: set[GroupPath] = set()
        self._emptied_expanded: set[GroupPath] = set()  # expanded groups whose last node left
        self._rewrite: dict[GroupPath, GroupPath] = {(): ()}
        self._bucket_of: dict[tuple[GroupPath, str], str] = {}
        self._rep_cache: dict[GroupPath, str | None] = {}
        self._merge: dict[GroupPath, GroupPath] = {}
        if enabled:
            self._merge = merge_chains(set(raw_paths.values()))
            raw_paths = lone_nodes_lifted({n: self._merge.get(p, p) for n, p in raw_paths.items()})
            self._build_buckets(raw_paths.values())
        # add() for every node, counted per distinct path (50k nodes share a few thousand paths).
        effective: dict[GroupPath, GroupPath] = {}
        per_path: dict[GroupPath, int] = {}
        for node_id, raw in raw_paths.items():
            path = effective.get(raw)
            if path is None:
                path = effective[raw] = self._effective(raw) if enabled else ()
            self.path[node_id] = path
            per_path[path] = per_path.get(path, 0) + 1
        for path, count in per_path.items():
            for depth in range(1, len(path) + 1):
                prefix = path[:depth]
                self.count[prefix] = self.count.get(prefix, 0) + count
                self.by_id.setdefault(group_id(prefix), prefix)

    # ------------------------------------------------------------ structure
    def _build_buckets(self, raw_paths: Iterable[GroupPath]) -> None:
        children: dict[GroupPath, dict[str, None]] = {}
        for raw in set(raw_paths):
            for depth in range(1, len(raw) + 1):
                children.setdefault(raw[: depth - 1], {})[raw[depth - 1]] = None
        bucket_of = self._bucket_of
        for parent, names in sorted(children.items(), key=lambda item: len(item[0])):
            if len(names) <= MAX_CHILDREN:
                continue
            ordered = sorted(names, key=_natural)
            size = max(math.ceil(math.sqrt(len(ordered))), math.ceil(len(ordered) / MAX_CHILDREN))
            for k in range(0, len(ordered), size):
                chunk = ordered[k : k + size]
                bucket = f"{BUCKET}{k // size}"
                label_path = self._effective(parent) + (bucket,)  # noqa: RUF005
                self.labels[label_path] = f"{chunk[0]} … {chunk[-1]}"
                for name in chunk:
                    bucket_of[(parent, name)] = bucket

    def _effective(self, raw: GroupPath) -> GroupPath:
        found = self._rewrite.get(raw)
        if found is None:
            head = self._effective(raw[:-1])
            bucket = self._bucket_of.get((raw[:-1], raw[-1]))
            found = head + ((bucket,) if bucket else ()) + (raw[-1],)
            self._rewrite[raw] = found
        return found

    def add(self, node_id: str, raw: GroupPath) -> GroupPath:
        """Place a node (a new scope makes a new group); `raw` is its scope as named, wrappers included."""
        raw = without_wrappers(raw, self.wrappers)
        return self.place(node_id, self._effective(self._merge.get(raw, raw)) if self.enabled else ())

    def place(self, node_id: str, path: GroupPath) -> GroupPath:
        """Put a node in the group `path` as it is (the group its twin had: a model swapped in keeps its groups,
        runs of flat ops and merged scopes included, which its scope alone would not give back)."""
        self.path[node_id] = path
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            self.count[prefix] = self.count.get(prefix, 0) + 1
            self.by_id.setdefault(group_id(prefix), prefix)
            if prefix in self._emptied_expanded:  # the group comes back as it was shown (an Undo of a swap)
                self._emptied_expanded.discard(prefix)
                self.expanded.add(prefix)
        return path

    def remove(self, node_id: str) -> GroupPath:
        path = self.path.pop(node_id, ())
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            self.count[prefix] -= 1
            if not self.count[prefix]:
                del self.count[prefix]
                self.by_id.pop(group_id(prefix), None)
                if prefix in self.expanded:  # remembered: a model swapped out and back (Sanitize, Undo) reopens it
                    self.expanded.discard(prefix)
                    self._emptied_expanded.add(prefix)
                self._rep_cache.clear()
        return path

    def label(self, path: GroupPath) -> str:
        return self.labels.get(path, path[-1] if path else "")

    # ------------------------------------------------------------ visibility
    def open_depth(self, path: GroupPath) -> int:
        """How many leading groups of `path` are shown expanded (all of them: the node itself is visible)."""
        for depth in range(1, len(path) + 1):
            if path[:depth] not in self.expanded:
                return depth - 1
        return len(path)

    def rep(self, node_id: str) -> str:
        """The id drawn for this node: itself, or its outermost collapsed group."""
        path = self.path.get(node_id, ())
        if not path:
            return node_id
        found = self._rep_cache.get(path, "")
        if found == "":  # cached per group path: many nodes share one (50k nodes, ~2k paths)
            depth = self.open_depth(path)
            found = None if depth == len(path) else group_id(path[: depth + 1])
            self._rep_cache[path] = found
        return node_id if found is None else found

    def parent_of(self, node_id: str) -> str | None:
        path = self.path.get(node_id, ())
        return group_id(path) if path else None

    def group_parent(self, path: GroupPath) -> str | None:
        return group_id(path[:-1]) if len(path) > 1 else None

    def visible_groups(self) -> list[tuple[GroupPath, bool]]:
        """(path, collapsed) of every group drawn, parents before children."""
        out: list[tuple[GroupPath, bool]] = []
        for path in sorted(self.count, key=lambda p: (len(p), _natural_path(p))):
            if self.open_depth(path[:-1]) == len(path) - 1:
                out.append((path, path not in self.expanded))
        return out

    def expand(self, path: GroupPath) -> None:
        self.expanded.add(path)
        self._rep_cache.clear()

    def expand_only(self, paths: Iterable[GroupPath]) -> None:
        """Exactly these groups expanded (another view's state handed over)."""
        self.expanded = {p for p in paths if p in self.count}
        self._rep_cache.clear()

    def collapse(self, path: GroupPath) -> None:
        self.expanded.discard(path)
        self._rep_cache.clear()

    def expand_to(self, node_id: str) -> bool:
        """Expand every group around a node; True if anything changed."""
        path = self.path.get(node_id, ())
        missing = {path[:d] for d in range(1, len(path) + 1)} - self.expanded
        self.expanded |= missing
        self._rep_cache.clear()
        return bool(missing)


def merge_chains(raw_paths: Iterable[GroupPath]) -> dict[GroupPath, GroupPath]:
    """Each scope path with single-child chains merged: a scope holding no node and one child scope is one group
    with its child (`model/layers`), so opening it does not show one box again (a 30-layer Llama needed three
    double-clicks to reach its layers)."""
    paths = set(raw_paths)
    direct = {p for p in paths if p}
    children: dict[GroupPath, set[str]] = {}
    for raw in paths:
        for depth in range(1, len(raw) + 1):
            children.setdefault(raw[: depth - 1], set()).add(raw[depth - 1])
    out: dict[GroupPath, GroupPath] = {}
    for raw in paths:
        merged: list[str] = []
        i = 0
        while i < len(raw):
            segment = raw[i]
            while i + 1 < len(raw) and raw[: i + 1] not in direct and len(children.get(raw[: i + 1], ())) == 1:
                i += 1
                segment += "/" + raw[i]
            merged.append(segment)
            i += 1
        out[raw] = tuple(merged)
    return out


def lone_nodes_lifted(paths: Mapping[str, GroupPath]) -> dict[str, GroupPath]:
    """Paths with groups of a single node dissolved: that node is drawn in the parent (a box "conv_proj / 1 nodes"
    hid a Conv that is more useful drawn as itself)."""
    below: dict[GroupPath, int] = {}
    for path in paths.values():
        for depth in range(1, len(path) + 1):
            below[path[:depth]] = below.get(path[:depth], 0) + 1
    out: dict[str, GroupPath] = {}
    for node_id, path in paths.items():
        while path and below[path] == 1:
            path = path[:-1]
        out[node_id] = path
    return out


def overview_expansion(grouping: Grouping, hidden: Iterable[str] = (), limit: int = 120) -> set[GroupPath]:
    """Groups to open so a big model's first view shows its structure: the biggest collapsed group is opened while
    it holds a quarter of the model, fewer than 8 elements show or no repeated blocks show yet, as long as at most
    `limit` elements show. A 30-layer Llama opens to embed, its 30 decoder layers, norm and lm_head rather than one
    box "model"; an SSDlite detector to its backbone's and head's blocks beside the runs of its postprocessing.
    Runs of flat ops (first_view.py) are not opened: they hold no structure."""
    skip = set(hidden)
    direct: dict[GroupPath, int] = {}
    for node_id, path in grouping.path.items():
        if node_id not in skip:
            direct[path] = direct.get(path, 0) + 1
    kids: dict[GroupPath, set[GroupPath]] = {}
    for path in grouping.count:
        kids.setdefault(path[:-1], set()).add(path)
    total = max(sum(direct.values()), 1)
    shown = direct.get((), 0) + len(kids.get((), ()))
    opened: set[GroupPath] = set()
    closed = sorted(kids.get((), ()), key=lambda p: -grouping.count[p])
    while True:
        biggest = next((p for p in closed if not is_run(p)), None)
        if biggest is None:
            break
        after = shown - 1 + direct.get(biggest, 0) + len(kids.get(biggest, ()))
        if after > limit or (grouping.count[biggest] < total / 4 and shown >= 8 and blocks_shown(closed)):
            break
        opened.add(biggest)
        shown = after
        closed = sorted([p for p in closed if p != biggest] + list(kids.get(biggest, ())),
                        key=lambda p: -grouping.count[p])
    return opened


def _natural(name: str) -> tuple[object, ...]:
    """Sort "block2" before "block10"."""
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _natural_path(path: GroupPath) -> tuple[tuple[object, ...], ...]:
    return tuple(_natural(p) for p in path)
