"""Crossing reduction and placement of layered drawings (document/layout/layer_order.py) on small cases checked by brute
force; the real-model figures are in tests/widgets/test_real_models.py and benchmarks/real_models_bench.py."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dld_jupyter.document.layout.layer_order import _crossings, _drawn_quality, _Layered, _pack, order_and_place
from dld_jupyter.document.layout.layered_layout import sugiyama_layout


def brute_crossings(upper: list[int], lower_rank: dict[int, int], links: list[tuple[int, int]]) -> int:
    rank_up = {v: i for i, v in enumerate(upper)}
    count = 0
    for (a, b), (c, d) in itertools.combinations(links, 2):
        if (rank_up[a] - rank_up[c]) * (lower_rank[b] - lower_rank[d]) < 0:
            count += 1
    return count


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(6, 11)), min_size=1, max_size=25, unique=True))
@settings(max_examples=150, deadline=None)
def test_inversion_count_equals_pairwise_crossings(links: list[tuple[int, int]]) -> None:
    upper = [0, 1, 2, 3, 4, 5]
    lower = list(range(6, 12))
    random.Random(len(links)).shuffle(lower)
    rank = [0] * 12
    for i, v in enumerate(upper):
        rank[v] = i
    for i, v in enumerate(lower):
        rank[v] = i
    down: list[list[int]] = [[] for _ in range(12)]
    for a, b in links:
        down[a].append(b)
    assert _crossings(upper, rank, down) == brute_crossings(upper, {v: rank[v] for v in lower}, links)


@given(st.lists(st.floats(-500, 500), min_size=1, max_size=12), st.lists(st.floats(4, 120), min_size=12, max_size=12))
@settings(max_examples=150, deadline=None)
def test_packing_keeps_order_and_never_overlaps(wishes: list[float], widths: list[float]) -> None:
    row = list(range(len(wishes)))
    x = list(wishes)
    _pack(row, x, widths, 10.0)
    for a, b in itertools.pairwise(row):
        assert x[b] - x[a] >= (widths[a] + widths[b]) / 2 + 10.0 - 1e-6
    if all(b - a >= (widths[i] + widths[i + 1]) / 2 + 10 for i, (a, b) in enumerate(itertools.pairwise(wishes))):
        assert x == pytest.approx(wishes, abs=1e-9)  # wishes that already fit are met (up to rounding)


def test_a_crossed_start_is_untangled() -> None:
    # Two chains a→c, b→d started crossed (a right of b but c left of d), plus a long link a→e two layers down.
    layers = [0, 0, 1, 1, 2]
    edges = [(0, 3), (1, 2), (0, 4), (3, 4)]
    start = [1.0, 0.0, 1.0, 0.0, 0.0]  # 0 right of 1 on top, 3 left of 2 below: crossed
    x = order_and_place(layers, edges, [(40.0, 20.0)] * 5, start, 10.0, 30.0)
    assert (x[0] - x[1]) * (x[3] - x[2]) > 0  # same side on both layers: the links no longer cross


@given(
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), min_size=1, max_size=20, unique=True),
    st.lists(st.integers(0, 40), min_size=12, max_size=12),
)
@settings(max_examples=200, deadline=None)
def test_drawn_crossings_are_the_straight_links_crossings(pairs: list[tuple[int, int]], xs: list[int]) -> None:
    layers = [v // 3 for v in range(12)]  # four layers of three vertices
    edges = [(a, b) for a, b in pairs if layers[a] < layers[b]]
    g = _Layered(layers, edges, [10.0] * 12)
    level_y = {0: 0.0, 1: 50.0, 2: 130.0, 3: 170.0}  # uneven gaps, as layers of different heights make
    x = [float(v) for v in xs] + [0.0] * (len(g.layer) - 12)  # dummies do not take part in the drawn links
    pos = {v: (x[v], level_y[layers[v]]) for v in range(12)}

    def orient(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    brute = 0
    for (a, b), (c, d) in itertools.combinations(sorted(set(edges)), 2):
        if len({a, b, c, d}) < 4:
            continue
        p, q, r, s = pos[a], pos[b], pos[c], pos[d]
        if orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0:
            brute += 1
    crossings, _ = _drawn_quality(x, g, level_y)
    # Integer x on these levels can make a link pass exactly through another's end: both counts skip touching.
    assert crossings == brute


def test_a_side_branch_sits_next_to_where_it_is_used() -> None:
    # a → b → c → d → e, and a → m → e: longest path puts m just under a, its link to e then passes 3 layers.
    chain = [f"n{k}" for k in range(5)]
    edges = [*itertools.pairwise(chain), ("n0", "m"), ("m", "n4")]
    pos = sugiyama_layout([*chain, "m"], edges)
    assert pos["m"][1] == pos["n3"][1]  # one layer above its user: no link passes the chain's layers
