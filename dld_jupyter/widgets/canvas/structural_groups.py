"""Groups for big models without name scopes (ONNX files written by other exporters, or names stripped).

A flat level of thousands of nodes is unreadable and slow to draw, so such a model is cut into runs of
consecutive nodes in topological order (the file's order, which the document keeps sorted): a run is mostly one
stretch of the network, and its label names its commonest ops (`Conv ×12 · Relu ×12 · Add ×4`) so the reader can
tell the stretches apart. About `PARTS` runs, so the first view stays within the overview's size.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

GroupPath = tuple[str, ...]
PARTS = 40
IO_KINDS = ("Input", "Output")


def structural_paths(
    order: Sequence[str], op_type: Mapping[str, str]
) -> tuple[dict[str, GroupPath], dict[GroupPath, str]]:
    """A group path for every node (graph inputs and outputs stay at the top) and a label per group."""
    ops = [n for n in order if op_type.get(n) not in IO_KINDS]
    size = max(50, math.ceil(len(ops) / PARTS))
    paths: dict[str, GroupPath] = dict.fromkeys(order, ())
    labels: dict[GroupPath, str] = {}
    for k in range(0, len(ops), size):
        run = ops[k : k + size]
        path = (f"part{k // size}",)
        for n in run:
            paths[n] = path
        common = Counter(op_type[n] for n in run).most_common(3)
        labels[path] = f"{k + 1}–{k + len(run)}: " + " · ".join(f"{op} ×{count}" for op, count in common)
    return paths, labels
