"""Turn parsed ORT trace runs into the builder's layer records and the median run's timeline.

Shared by the profiler and the trace import, so the same trace gives the same layers. A layer is one executed node
name: a node that runs several times in a pass (inside a Loop body) adds up to one layer time per pass, and a pass
it did not run in counts 0 ms; every execution of the median run is its own timeline event.
Layers come in inference order of the median run; nodes that only ran in other runs come last.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dld_jupyter.activities.runtimes.onnxruntime.trace import NodeEvent, RunTrace
from dld_jupyter.report_format.builder import LayerRecord
from dld_jupyter.report_format.model import TimelineEvent

# Copies between devices and layout reorders are framework overhead, drawn apart on the timeline (seed 000).
OVERHEAD_TYPES = {"MemcpyToHost", "MemcpyFromHost", "ReorderInput", "ReorderOutput"}

SourcesOf = Callable[[str], list[str]]  # layer name → the ONNX nodes it comes from
# executed node name → (layer name, layer type) when several kernels form one layer (a function op ORT inlined)
MergedInto = Callable[[str], "tuple[str, str] | None"]


def _unmerged(name: str) -> tuple[str, str] | None:
    return None


@dataclass
class _Acc:
    first: NodeEvent
    per_run_ms: list[float | None] = field(default_factory=list)


def _per_run_times(runs: list[RunTrace], order: list[NodeEvent], layer_of: Callable[[str], str]) -> dict[str, _Acc]:
    acc: dict[str, _Acc] = {}
    for node in order:
        acc.setdefault(layer_of(node.name), _Acc(node, [0.0] * len(runs)))
    for index, run in enumerate(runs):
        for node in run.nodes:
            times = acc[layer_of(node.name)].per_run_ms
            times[index] = (times[index] or 0.0) + node.dur_us / 1000.0
    return acc


# A GPU run copies its inputs to the device before the first kernel and its outputs back after the last one, outside
# every node event, and waits between kernels (launches, synchronization): without these rows the layers of a
# ResNet-18 batch-32 pass on an H100 added up to 40 % of it, and with the copies alone to 75-92 % (measured).
COPY_ROWS = ("H2D input copies", "D2H output copies")
GAPS_ROW = "Between kernels (launches, synchronization)"
# ORT's own run starts after Python has handed it the feeds and ends before the outputs are numpy arrays again;
# on a 0.5 ms batch-1 pass that is 5 % of the wall time the summary shows (H100, bundled ResNet-8).
HOST_ROW = "Host call (Python binding, feeds and fetches)"


def _non_compute(runs: list[RunTrace]) -> tuple[list[float | None], list[float | None], list[float | None]]:
    """Per run: time before its first node, after its last, and between its nodes (ms); None for an empty run."""
    before: list[float | None] = []
    after: list[float | None] = []
    gaps: list[float | None] = []
    for run in runs:
        if not run.nodes:
            before.append(None)
            after.append(None)
            gaps.append(None)
            continue
        first = min(node.start_us for node in run.nodes)
        last = max(node.start_us + node.dur_us for node in run.nodes)
        busy = sum(node.dur_us for node in run.nodes)
        before.append(max(0.0, first - run.start_us) / 1000.0)
        after.append(max(0.0, run.start_us + run.dur_us - last) / 1000.0)
        gaps.append(max(0.0, (last - first) - busy) / 1000.0)
    return before, after, gaps


def with_copy_rows(
    runs: list[RunTrace], median: int, records: list[LayerRecord], timeline: list[TimelineEvent]
) -> tuple[list[LayerRecord], list[TimelineEvent]]:
    """The layers and timeline with the non-compute work of a GPU run as overhead rows: the copies before the first
    node and after the last (each a range on the timeline), and the gaps between nodes (seen there as gaps), so the
    rows add up to the pass."""
    before, after, gaps = _non_compute(runs)
    h2d = LayerRecord(name=COPY_ROWS[0], type="Memcpy", times_ms=before, overhead=True)
    d2h = LayerRecord(name=COPY_ROWS[1], type="Memcpy", times_ms=after, overhead=True)
    waits = LayerRecord(name=GAPS_ROW, type="Overhead", times_ms=gaps, overhead=True)
    shifted = [TimelineEvent(e.layer + 1, e.name, e.stream, e.start_ms, e.duration_ms, e.overhead) for e in timeline]
    end_ms = runs[median].dur_us / 1000.0
    before_ms, after_ms = before[median] or 0.0, after[median] or 0.0
    events = [TimelineEvent(0, h2d.name, 0, 0.0, before_ms, True), *shifted]
    events.append(TimelineEvent(len(records) + 1, d2h.name, 0, end_ms - after_ms, after_ms, True))
    return [h2d, *records, d2h, waits], events


def with_host_row(runs: list[RunTrace], wall_ms: list[float], records: list[LayerRecord]) -> list[LayerRecord]:
    """The layers with one more overhead row: each profiled pass's wall time outside ORT's run (`wall_ms[i]` is
    pass i timed around `session.run`), so the rows add up to the profiled pass, not only to ORT's part of it."""
    outside = [max(0.0, wall - run.dur_us / 1000.0) for wall, run in zip(wall_ms, runs, strict=True)]
    return [*records, LayerRecord(name=HOST_ROW, type="Overhead", times_ms=list(outside), overhead=True)]


def ort_layers(
    runs: list[RunTrace], median: int, sources_of: SourcesOf, merged_into: MergedInto = _unmerged
) -> tuple[list[LayerRecord], list[TimelineEvent]]:
    """Layer records (per-run times) and the timeline of run `median`, its node start times relative to the run.
    Kernels `merged_into` one layer add up to its time; each stays its own event on the timeline."""

    def layer_of(name: str) -> str:
        merged = merged_into(name)
        return merged[0] if merged is not None else name

    first_seen = runs[median].nodes + [node for index, run in enumerate(runs) if index != median for node in run.nodes]
    acc = _per_run_times(runs, first_seen, layer_of)
    streams: dict[int, int] = {}
    records: list[LayerRecord] = []
    index_of: dict[str, int] = {}
    for name, entry in acc.items():
        node = entry.first
        merged = merged_into(node.name)
        index_of[name] = len(records)
        records.append(
            LayerRecord(
                name=name,
                type=merged[1] if merged is not None else node.op_type or "Unknown",
                times_ms=entry.per_run_ms,
                onnx_nodes=list(sources_of(name)),
                input_dims=node.input_dims,
                output_dims=node.output_dims,
                precision=node.precision,
                provider=node.provider,
                stream=streams.setdefault(node.thread, len(streams)),
                overhead=node.op_type in OVERHEAD_TYPES,
            )
        )
    run = runs[median]
    timeline = [
        TimelineEvent(
            layer=index_of[layer_of(node.name)],
            name=node.name,
            stream=records[index_of[layer_of(node.name)]].stream,
            start_ms=(node.start_us - run.start_us) / 1000.0,
            duration_ms=node.dur_us / 1000.0,
            overhead=node.op_type in OVERHEAD_TYPES,
        )
        for node in run.nodes
    ]
    return records, timeline
