"""Pair the nodes of two graphs by structure first and by name last, so a renamed export pairs completely.

Cases handled, in order:
1. anchors: nodes whose (forward, backward) hashes agree, then forward alone (same computation above them), then
   backward alone (same use below them); within a bucket of look-alikes (q/k/v projections of one layer) equal
   names pair first, then graph order;
2. propagation from every pair: producers at the same input slot with the same op, and consumers of the same output
   at the same slot with the same op (a unique candidate on each side, else equal names, else graph order);
3. names as the last hint: unpaired nodes of equal name and op pair, then equal name with another op (an op swapped
   in place: reported as an op change); propagation runs again after each.
What stays unpaired is added (only in B) or removed (only in A). Linear in nodes apart from the buckets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable

from .graph_index import GraphIndex, output_slot


class Matching:
    """The pairing of ``a``'s nodes with ``b``'s: ``a_to_b[i] = j`` (positions)."""

    def __init__(self, a: GraphIndex, b: GraphIndex) -> None:
        self.a, self.b = a, b
        self.a_to_b: dict[int, int] = {}
        self.b_to_a: dict[int, int] = {}
        self._work: list[tuple[int, int]] = []
        for key in (
            lambda g, i: (g.forward[i], g.backward[i]),
            lambda g, i: g.forward[i],
            lambda g, i: g.backward[i],
        ):
            self._bucket_pass(key)
        self._propagate()
        self._bucket_pass(lambda g, i: (g.keys[i][0], g.labels[i]))
        self._propagate()
        self._bucket_pass(lambda g, i: g.labels[i])
        self._propagate()

    def _pair(self, i: int, j: int) -> None:
        self.a_to_b[i] = j
        self.b_to_a[j] = i
        self._work.append((i, j))

    def _bucket_pass(self, key: Callable[[GraphIndex, int], Hashable]) -> None:
        left: dict[Hashable, list[int]] = defaultdict(list)
        for i in range(len(self.a.nodes)):
            if i not in self.a_to_b:
                left[key(self.a, i)].append(i)
        right: dict[Hashable, list[int]] = defaultdict(list)
        for j in range(len(self.b.nodes)):
            if j not in self.b_to_a:
                right[key(self.b, j)].append(j)
        for k, these in left.items():
            those = right.get(k)
            if those:
                self._pair_lists(these, those)

    def _pair_lists(self, these: list[int], those: list[int]) -> None:
        """Pair two lists of look-alike positions: equal labels first, then in graph order."""
        these = [i for i in these if i not in self.a_to_b]
        those = [j for j in those if j not in self.b_to_a]
        if len(these) == 1 and len(those) == 1:
            self._pair(these[0], those[0])
            return
        by_label = {self.b.labels[j]: j for j in those}
        rest = []
        for i in these:
            j = by_label.pop(self.a.labels[i], None)
            if j is None:
                rest.append(i)
            else:
                self._pair(i, j)
        taken = set(self.b_to_a)
        for i, j in zip(rest, [j for j in those if j not in taken], strict=False):
            self._pair(i, j)

    def _propagate(self) -> None:
        a, b = self.a, self.b
        while self._work:
            i, j = self._work.pop()
            na, nb = a.nodes[i], b.nodes[j]
            for va, vb in zip(na.inputs, nb.inputs, strict=False):
                pa, pb = a.producer_index(va), b.producer_index(vb)
                if (
                    pa is not None and pb is not None and pa not in self.a_to_b and pb not in self.b_to_a
                    and a.keys[pa][0] == b.keys[pb][0] and output_slot(va) == output_slot(vb)
                ):
                    self._pair(pa, pb)
            for output in range(min(len(na.outputs), len(nb.outputs))):
                left = self._groups(a, a.consumers(i, output), self.a_to_b)
                right = self._groups(b, b.consumers(j, output), self.b_to_a)
                for key, these in left.items():
                    those = right.get(key)
                    if those:
                        self._pair_lists(these, those)

    @staticmethod
    def _groups(g: GraphIndex, uses: list[tuple[int, int]], paired: dict[int, int]) -> dict[Hashable, list[int]]:
        groups: dict[Hashable, list[int]] = defaultdict(list)
        for c, slot in uses:
            if c not in paired:
                groups[(g.keys[c][0], slot)].append(c)
        return groups

    def added(self) -> list[int]:
        return [j for j in range(len(self.b.nodes)) if j not in self.b_to_a]

    def removed(self) -> list[int]:
        return [i for i in range(len(self.a.nodes)) if i not in self.a_to_b]
