"""Which name scopes become groups on the canvas, and when a model opens grouped: rules learned from real exports.

Scope paths (scope_paths.py) follow the module tree of whatever PyTorch exported, wrappers included. Drawn as
they are, GPT-2 and Llama opened inside same-named nests ("model" inside "model"), their run-time mask chain
(Shape/Range/Cast…, 60+ ops) filled the first screen, and an SSDlite detector opened as one box holding 95 % of it
whose inside was a strip of 3,000 ops (its postprocessing, the tracer's unrolled loop over classes, flat in one
scope). So, before grouping (grouping.py), on the scopes of the drawn nodes:
- a root scope around the whole model (a wrapper module's "model") is dropped, and a scope named like its parent is
  one with it;
- a stretch of 12 or more consecutive ops of one scope beside its child scopes, or of more than 120 ops anywhere,
  is cut into runs of consecutive ops named by their commonest ops ("ops 1–24: Unsqueeze ×7 · Shape ×3"): 40 ops
  each, or 20 runs of a longer stretch;
- a model of a few hundred nodes opens grouped too when repeated blocks (`layer.0` … `layer.11`) hold most of it;
- a value read by every block (a mask) does not rank the blocks' layout, so they stand in one column.
Pure data over node ids and paths; the canvas view (canvas_view.py) applies it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

from dld_jupyter.widgets.canvas.protocol import EdgeData, NodeData

GroupPath = tuple[str, ...]

RUN_PREFIX = "ops "  # no module attribute has a space: a run's segment cannot be a real scope
RUN_BESIDE_GROUPS = 12
RUN_ALONE = 120
RUN_SIZE = 40
RUN_PARTS = 20
BLOCKS_MIN = 3
SMALL_GROUPED = 200  # drawn nodes from which repeated blocks make a model open grouped


def stem(segment: str) -> str:
    """`layers.12` and `layers.3` are the same kind of block: digits made alike."""
    return re.sub(r"\d+", "#", segment)


def is_run(path: GroupPath) -> bool:
    return bool(path) and path[-1].startswith(RUN_PREFIX)


def wrapper_roots(paths: Mapping[str, GroupPath], drawn: Collection[str]) -> GroupPath:
    """The root scopes around the whole model, outermost first: while every drawn op with a scope sits under one
    root scope (same-named nests merged), that root is a wrapper. Ops outside every module (torch.export's symbolic
    sizes) do not count. `drawn`: the ops drawn (not inputs, outputs, hidden constants)."""
    distinct = {_dedup(paths[n]) for n in drawn if n in paths}
    roots: list[str] = []
    while True:
        tops = {p[0] for p in distinct if p}
        if len(tops) != 1:
            return tuple(roots)
        roots.append(tops.pop())
        distinct = {p[1:] if p and p[0] == roots[-1] else p for p in distinct}


def without_wrappers(path: GroupPath, roots: GroupPath) -> GroupPath:
    """`path` with same-named nests merged and the wrapper roots dropped (also for a node added later)."""
    path = _dedup(path)
    for root in roots:
        if not path or path[0] != root:
            break
        path = path[1:]
    return path


def _dedup(path: GroupPath) -> GroupPath:
    if len(set(path)) == len(path):
        return path
    kept: list[str] = []
    for segment in path:
        if not kept or segment != kept[-1]:
            kept.append(segment)
    return tuple(kept)


def runs_cut(
    order: Sequence[str], paths: Mapping[str, GroupPath], op_type: Mapping[str, str], drawn: Collection[str]
) -> dict[str, GroupPath]:
    """Paths with long stretches of one scope's own ops moved into run groups (see the module note). A stretch is a
    maximal sequence, in file (topological) order, of drawn ops of one scope with no op of that scope's children
    between them (a module of one op neither ends one nor joins it); hidden nodes (constants) go with their run."""
    per_path = Counter(paths.values())
    below: Counter[GroupPath] = Counter()
    for p, count in per_path.items():
        for depth in range(1, len(p) + 1):
            below[p[:depth]] += count
    lifted: dict[GroupPath, GroupPath] = {}  # a scope of one node is drawn in its parent (grouping.lone_nodes_lifted)
    ancestors: dict[GroupPath, list[GroupPath]] = {}
    for p in per_path:
        q = p
        while q and below[q] == 1:
            q = q[:-1]
        lifted[p] = q
        ancestors[q] = [q[:depth] for depth in range(len(q))]
    has_children = {p[:-1] for p in lifted.values() if p}
    out = dict(paths)
    stretch: dict[GroupPath, list[str]] = {}
    done: list[tuple[GroupPath, list[str]]] = []
    for node in order:
        if node not in paths or op_type.get(node) in ("Input", "Output", "Outer"):
            continue
        path = lifted[paths[node]]
        if path != paths[node]:  # a module of one op (an embedding lookup) is drawn as itself, beside the runs
            continue
        if len(stretch) > 1 or path not in stretch:
            for above in ancestors[path]:  # an op of a child scope ends its ancestors' stretches
                if above in stretch:
                    done.append((above, stretch.pop(above)))
        stretch.setdefault(path, []).append(node)
    done.extend(stretch.items())
    counter: dict[GroupPath, int] = {}
    for path, nodes in done:
        if len(nodes) < RUN_BESIDE_GROUPS:  # most stretches: a few ops between two child scopes
            continue
        shown = [n for n in nodes if n in drawn]
        limit = RUN_BESIDE_GROUPS if path in has_children else RUN_ALONE + 1
        if len(shown) < limit:
            continue
        parts = min(math.ceil(len(shown) / RUN_SIZE), RUN_PARTS)
        size = math.ceil(len(shown) / parts)
        chunks: list[list[str]] = [[]]
        count = 0
        for n in nodes:
            if n in drawn and count == size:
                chunks.append([])
                count = 0
            chunks[-1].append(n)
            count += n in drawn
        for chunk in chunks:
            first = counter.get(path, 0) + 1
            ops = [op_type[n] for n in chunk if n in drawn]
            counter[path] = first - 1 + len(ops)
            segment = f"{RUN_PREFIX}{first}–{first + len(ops) - 1}: " + op_summary(ops, 2)  # fits a group box
            for n in chunk:
                out[n] = (*path, segment)
    return out


def op_summary(ops: Iterable[str], most: int = 3) -> str:
    """`Unsqueeze ×9 · Shape ×5 · Range ×2`: the commonest ops of a stretch."""
    return " · ".join(f"{op} ×{count}" for op, count in Counter(ops).most_common(most))


def block_kinds(paths: Iterable[GroupPath]) -> set[GroupPath]:
    """Runs of sibling blocks (`layer.0` … `layer.11` under one parent, BLOCKS_MIN or more): parent + (stem,)."""
    members: dict[GroupPath, set[str]] = {}
    for path in set(paths):
        for depth in range(1, len(path) + 1):
            segment = path[depth - 1]
            if any(c.isdigit() for c in segment) and not segment.startswith(RUN_PREFIX):
                members.setdefault((*path[: depth - 1], stem(segment)), set()).add(segment)
    return {kind for kind, names in members.items() if len(names) >= BLOCKS_MIN}


def blocks_shown(collapsed: Iterable[GroupPath]) -> bool:
    """Whether BLOCKS_MIN of these collapsed groups are siblings of one kind (`layers.0`, `layers.1`, …)."""
    kinds = Counter((p[:-1], stem(p[-1])) for p in collapsed if p and any(c.isdigit() for c in p[-1]))
    return any(count >= BLOCKS_MIN for (_, kind), count in kinds.items() if not kind.startswith(RUN_PREFIX))


def in_blocks(path: GroupPath, kinds: Collection[GroupPath]) -> bool:
    return any((*path[: depth - 1], stem(path[depth - 1])) in kinds for depth in range(1, len(path) + 1))


def opens_grouped(paths: Mapping[str, GroupPath], drawn: Collection[str]) -> bool:
    """A model of SMALL_GROUPED drawn ops or more, half of them inside repeated blocks, opens grouped (BERT-base:
    425 drawn ops in 12 layers; SSDlite's backbone and head: 236 in its stages and per-scale heads); smaller ones
    (ResNet-18: 51) open expanded, as in Netron."""
    shown = [paths.get(n, ()) for n in drawn]
    if len(shown) < SMALL_GROUPED:
        return False
    kinds = block_kinds(shown)
    return sum(in_blocks(p, kinds) for p in shown) >= len(shown) / 2


def tidy_paths(
    order: Sequence[str], paths: Mapping[str, GroupPath], op_type: Mapping[str, str], drawn: Collection[str]
) -> tuple[dict[str, GroupPath], GroupPath]:
    """Scope paths as the canvas groups them (wrappers dropped, long stretches of own ops cut into runs) and the
    wrapper roots dropped (for nodes added later)."""
    roots = wrapper_roots(paths, drawn)
    tidy = {p: without_wrappers(p, roots) for p in set(paths.values())}
    return runs_cut(order, {n: tidy[p] for n, p in paths.items()}, op_type, set(drawn)), roots


def layout_links(nodes: dict[str, NodeData], edges: Iterable[EdgeData], broadcast: int = 3) -> list[tuple[str, str]]:
    """The links the layout ranks by: a value fed to `broadcast` or more collapsed groups (a transformer's mask and
    sizes, read by every layer) counts only towards the first of them. All of them pulled at it, and GPT-2's
    blocks zigzagged across the screen under a fan of long links instead of standing in one column."""
    links = [(e["source"], e["target"]) for e in edges]
    fed: dict[str, list[str]] = {}
    for src, dst in links:
        if nodes[dst]["kind"] == "group" and nodes[dst]["collapsed"]:
            fed.setdefault(src, []).append(dst)
    dropped = {(src, dst) for src, targets in fed.items() if len(targets) >= broadcast for dst in targets[1:]}
    return [link for link in links if link not in dropped] if dropped else links
