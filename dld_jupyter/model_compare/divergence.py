"""`diverge(reference, candidate)`: which ONNX node first loses accuracy, and by how much every node does.

Why (issue 30): after FP16, INT8 or another runtime, users ask which node first goes wrong. Polygraphy marks every
tensor as an output (out of memory on transformers) and answers in runtime layer counts; here the two models'
nodes pair through the structural diff (a renamed or converted copy still pairs: names are a hint, not the key),
the paired nodes' outputs are read window by window (the ONNX Runtime windows engine, runtimes/onnxruntime/windows.py:
one session per window and side, so memory holds one model's weights and two windows of activations; a window is at
most `window` tensors and `window_bytes` of activations as ONNX shape inference sizes them for the feeds, so a layer
of huge tensors gets small windows),
and each pair is measured (tensor_metrics.py). The result is the whole table in execution order, in the
reference's ONNX node names, and the first node whose metric is past the tolerance. It exports to and imports
from Model Explorer's node-data JSON (node_data.py).

A divergence takes tens of seconds on a BERT-base-sized encoder, so it is a run (issue 25's seam): `progress`
hears `(windows done / total, the window's first node)` before each window and 1.0 at the end, and `cancel` (a
`CancelToken`) is checked between windows and ends the window's ORT run (windows.py); a cancelled divergence
raises `Cancelled` with both private copies removed. It runs in the activity worker as the kind of
divergence_kind.py, which frontdoor/compare_runs.py starts for every front door.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import onnx_ir as ir

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.onnxruntime.inputs import random_feeds
from dld_jupyter.activities.runtimes.onnxruntime.windows import Windows, ort_provider
from dld_jupyter.document.layout.explorer_ids import explorer_node_ids
from dld_jupyter.transforms.progress import CancelToken, Progress, step

from .graph_index import GraphIndex
from .matching import Matching
from .structural_diff import ModelLike, as_model
from .tensor_metrics import METRICS, TensorMetrics, measure

DEFAULT_TOLERANCE = {"max_abs": 1e-3, "max_rel": 1e-2, "cosine": 0.9999, "sqnr": 40.0}
WINDOW = 64  # tensors read per session, at most
WINDOW_BYTES = 256 << 20  # and at most this many bytes of activations per side, as far as shape inference knows
WHAT = "Divergence"
PREFIX = "dld-diverge-"  # of each side's private copy (a folder of the temporary directory)


@dataclass(frozen=True)
class NodeDivergence:
    """One paired output: the reference node (ONNX name), its candidate partner and the metrics of the output."""

    order: int  # the reference node's position in execution order
    node: str
    candidate_node: str
    op_type: str
    output: int
    tensor: str
    metrics: TensorMetrics
    over: bool
    # the reference node's id in Model Explorer (document/layout/explorer_ids.py): its node-data key
    explorer_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"order": self.order, "node": self.node, "candidate_node": self.candidate_node,
                "op_type": self.op_type, "output": self.output, "tensor": self.tensor, "over": self.over,
                "explorer_id": self.explorer_id, **self.metrics.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NodeDivergence:
        """The row of `to_dict` (the table a divergence run writes), non-finite metrics given as text included."""
        fields = TensorMetrics.__dataclass_fields__
        metrics = {k: (v if k == "error" or v is None else type_of(fields[k].type)(v)) for k, v in data.items()
                   if k in fields}
        return cls(int(data["order"]), str(data["node"]), str(data["candidate_node"]), str(data["op_type"]),
                   int(data["output"]), str(data["tensor"]), TensorMetrics(**metrics), bool(data["over"]),
                   str(data.get("explorer_id") or data["node"]))  # a table written before the id: its name


@dataclass
class Divergence:
    """The per-node table of a divergence run, in the reference's execution order, and its first node over."""

    metric: str
    tolerance: float
    rows: list[NodeDivergence]
    reference_provider: str
    candidate_provider: str
    unpaired_reference: list[str] = field(default_factory=list)  # nodes with no partner: not compared
    unpaired_candidate: list[str] = field(default_factory=list)
    windows: int = 0
    largest_window_bytes: int = 0

    @property
    def first(self) -> NodeDivergence | None:
        return next((row for row in self.rows if row.over), None)

    def table(self, sort_by: str | None = None, descending: bool = True) -> list[NodeDivergence]:
        """The rows, in execution order or sorted by a metric (NaN last)."""
        if sort_by is None:
            return list(self.rows)
        if sort_by not in METRICS:
            raise ValueError(f"sort_by={sort_by!r} is not one of {METRICS}")

        def key(row: NodeDivergence) -> float:
            value = row.metrics.value(sort_by)
            return -np.inf if np.isnan(value) else (value if descending else -value)

        return sorted(self.rows, key=key, reverse=True)

    def by_node(self) -> dict[str, NodeDivergence]:
        """The worst output of each reference node (by the run's metric)."""
        worst: dict[str, NodeDivergence] = {}
        for row in self.rows:
            kept = worst.get(row.node)
            if kept is None or worse(row, kept, self.metric):
                worst[row.node] = row
        return worst

    def headline(self) -> str:
        first = self.first
        over = sum(1 for r in self.rows if r.over)
        if first is None:
            return f"{len(self.rows)} tensors compared, none past {self.metric} {self.tolerance:g}"
        return (f"first past {self.metric} {self.tolerance:g}: {first.node} ({first.op_type}, "
                f"{self.metric} {first.metrics.value(self.metric):.4g}); {over} of {len(self.rows)} tensors past it")

    def to_dict(self) -> dict[str, Any]:
        first = self.first
        return {
            "metric": self.metric, "tolerance": self.tolerance, "headline": self.headline(),
            "first": first.to_dict() if first else None,
            "reference_provider": self.reference_provider, "candidate_provider": self.candidate_provider,
            "rows": [r.to_dict() for r in self.rows],
            "unpaired_reference": self.unpaired_reference, "unpaired_candidate": self.unpaired_candidate,
            "windows": self.windows, "largest_window_bytes": self.largest_window_bytes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Divergence:
        """The divergence of `to_dict` (a run's table JSON); its headline and first row are derived again."""
        return cls(str(data["metric"]), float(data["tolerance"]), [NodeDivergence.from_dict(r) for r in data["rows"]],
                   str(data["reference_provider"]), str(data["candidate_provider"]),
                   list(data["unpaired_reference"]), list(data["unpaired_candidate"]), int(data["windows"]),
                   int(data["largest_window_bytes"]))


def type_of(annotation: object) -> type:
    """float or int, from a TensorMetrics field's annotation (a string under `from __future__ import annotations`)."""
    return int if str(annotation) in ("int", "<class 'int'>") else float


def worse(a: NodeDivergence, b: NodeDivergence, metric: str) -> bool:
    if a.over != b.over:
        return a.over
    va, vb = a.metrics.value(metric), b.metrics.value(metric)
    return va < vb if metric in ("cosine", "sqnr") else va > vb


def _pairs(ra: GraphIndex, rb: GraphIndex, matching: Matching) -> list[tuple[int, int, int, str, str]]:
    """(order, candidate position, output, reference tensor, candidate tensor) of every paired output."""
    found = []
    for i, j in sorted(matching.a_to_b.items()):
        for k, (va, vb) in enumerate(zip(ra.nodes[i].outputs, rb.nodes[j].outputs, strict=False)):
            if va.name and vb.name:
                found.append((i, j, k, va.name or "", vb.name or ""))
    return found


def windows(sizes: list[int], most: int, cap: int) -> list[tuple[int, int]]:
    """(start, stop) of consecutive windows of at most `most` tensors and `cap` bytes (a tensor larger than `cap`
    gets a window of its own; an unknown size counts 0, so the tensor count still bounds it)."""
    spans: list[tuple[int, int]] = []
    start = held = 0
    for at, size in enumerate(sizes):
        if at > start and (at - start >= most or held + size > cap):
            spans.append((start, at))
            start, held = at, 0
        held += size
    if start < len(sizes):
        spans.append((start, len(sizes)))
    return spans


def default_feeds(model: ir.Model, seed: int = 0) -> dict[str, np.ndarray]:
    """Random inputs for ``model`` (symbolic dimensions 1, floats in [0, 1), integers 0 or 1)."""
    graph = onnx.GraphProto()
    for value in model.graph.inputs:
        if not value.is_initializer():
            ir.serde.serialize_value_into(graph.input.add(), value)
    return random_feeds(graph, None, seed)


def check_arguments(metric: str = "max_abs", window: int = WINDOW, reference_provider: str = "cpu",
                    candidate_provider: str = "cpu", tolerance: float | None = None,
                    window_bytes: int = WINDOW_BYTES) -> None:
    """What a run would only find after pairing and copying both models, said at once (SpecError, UnavailableError
    naming the build to install): a run started in the background refuses them before it starts."""
    if metric not in METRICS:
        raise SpecError(f"metric: {metric!r} is not one of {list(METRICS)}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise SpecError(f"window: {window!r} tensors cannot hold anything; give 1 or more")
    if tolerance is not None and (isinstance(tolerance, bool) or not isinstance(tolerance, int | float)
                                  or not math.isfinite(tolerance)):
        raise SpecError(f"tolerance: {tolerance!r} is no threshold (nan and inf compare with nothing); give a "
                        "finite number, or None for the metric's default")
    if isinstance(window_bytes, bool) or not isinstance(window_bytes, int) or window_bytes < 1:
        raise SpecError(f"window_bytes: {window_bytes!r} bytes cannot hold a window; give 1 or more")
    for provider in dict.fromkeys((reference_provider, candidate_provider)):
        ort_provider(provider)


def diverge(
    reference: ModelLike,
    candidate: ModelLike,
    inputs: Mapping[str, np.ndarray] | None = None,
    metric: str = "max_abs",
    tolerance: float | None = None,
    reference_provider: str = "cpu",
    candidate_provider: str = "cpu",
    window: int = WINDOW,
    seed: int = 0,
    window_bytes: int = WINDOW_BYTES,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Divergence:
    """Run ``reference`` and ``candidate`` on the same inputs and compare every paired node's outputs;
    ``progress(fraction, message)`` hears each window, ``cancel`` stops between windows (module docstring)."""
    check_arguments(metric, window, reference_provider, candidate_provider, tolerance, window_bytes)
    tolerance = DEFAULT_TOLERANCE[metric] if tolerance is None else float(tolerance)
    step(progress, cancel, WHAT, 0.0, "pairing the two models' nodes")
    ma, mb = as_model(reference), as_model(candidate)
    ra, rb = GraphIndex(ma.graph), GraphIndex(mb.graph)
    matching = Matching(ra, rb)
    pairs = _pairs(ra, rb, matching)
    if not pairs:  # "none past" would say the models agree when nothing was compared
        raise SpecError(f"the two models share no node to compare ({len(ra.nodes)} and {len(rb.nodes)} nodes, none "
                        "paired by the structural diff): compare a model with a converted, edited or re-exported "
                        "copy of itself")
    result = Divergence(metric, tolerance, [], reference_provider, candidate_provider,
                        [ra.labels[i] for i in matching.removed()], [rb.labels[j] for j in matching.added()])
    names = [str(value.name) for value in ma.graph.inputs if not value.is_initializer()]
    unknown = sorted(set(inputs or {}) - set(names))
    if unknown:  # a misspelt --input was dropped and the run fed random data
        raise SpecError(f"inputs: {unknown} are not inputs of the reference model; its inputs are {sorted(names)}")
    given = dict(inputs or {})
    feeds = given if set(given) >= set(names) else {**default_feeds(ma, seed), **given}  # random: those not given
    explorer = explorer_node_ids(ma.graph)
    labels = [(ra.labels[i], rb.labels[j], ra.nodes[i].op_type) for i, j, *_ in pairs]
    with contextlib.ExitStack() as sides:  # each private copy is removed on the way out, a cancel included
        step(progress, cancel, WHAT, 0.0, f"writing the reference's private copy ({len(pairs)} tensors to compare)")
        side_a = sides.enter_context(Windows(ma, reference_provider, "the reference", prefix=PREFIX))
        step(progress, cancel, WHAT, 0.0, "writing the candidate's private copy")
        side_b = sides.enter_context(Windows(mb, candidate_provider, "the candidate", prefix=PREFIX))
        del ma, mb, ra, rb, matching  # the private copies are what runs: a model opened here is closed now,
        gc.collect()  # its weight mappings with it (ir graphs hold reference cycles)
        size_a, size_b = side_a.tensor_bytes(feeds), side_b.tensor_bytes(feeds)
        spans = windows([max(size_a.get(p[3], 0), size_b.get(p[4], 0)) for p in pairs], window, window_bytes)
        total = len(spans)
        for done, (start, stop) in enumerate(spans):
            chunk = pairs[start:stop]
            step(progress, cancel, WHAT, done / max(total, 1),
                 f"window {done + 1}/{total}: {len(chunk)} tensor{'s' * (len(chunk) != 1)} from {labels[start][0]}")
            values_a = side_a.run([p[3] for p in chunk], feeds, cancel=cancel, what=WHAT)
            values_b = side_b.run([p[4] for p in chunk], feeds, cancel=cancel, what=WHAT)
            for (i, _j, k, name_a, name_b), (node, partner, op) in zip(chunk, labels[start:stop], strict=True):
                metrics = measure(values_a.pop(name_a), values_b.pop(name_b))
                result.rows.append(NodeDivergence(i, node, partner, op, k, name_a, metrics,
                                                  metrics.over(metric, tolerance), explorer[i]))
            result.windows += 1
        result.largest_window_bytes = max(side_a.largest_window, side_b.largest_window)
    if progress is not None:  # the result stands: a cancel that comes now is too late to matter
        progress(1.0, f"{result.windows}/{result.windows} windows: {result.headline()}")
    return result
