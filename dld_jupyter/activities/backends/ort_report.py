"""Turn parsed ORT profiler runs into the report's layers and the median pass timeline."""

from __future__ import annotations

from dataclasses import dataclass, field

from dld_jupyter.activities.backends.ort_nodes import NodeMap
from dld_jupyter.activities.backends.ort_trace import NodeEvent, RunTrace
from dld_jupyter.reports.model import Layer, TimelineEvent

# Copies between devices and layout reorders are framework overhead, drawn apart on the timeline (seed 000).
OVERHEAD_TYPES = {"MemcpyToHost", "MemcpyFromHost", "ReorderInput", "ReorderOutput"}


@dataclass
class _Acc:
    first: NodeEvent
    per_run_ms: list[float] = field(default_factory=list)


def _per_run_times(runs: list[RunTrace]) -> dict[str, _Acc]:
    acc: dict[str, _Acc] = {}
    for index, run in enumerate(runs):
        for node in run.nodes:
            entry = acc.setdefault(node.name, _Acc(node, [0.0] * len(runs)))
            entry.per_run_ms[index] += node.dur_us / 1000.0  # a node may run more than once per pass
    return acc


def build_layers(runs: list[RunTrace], median: int, node_map: NodeMap) -> tuple[list[Layer], list[TimelineEvent]]:
    """Layers in inference order of the median run (nodes that only ran in other runs come last)."""
    acc = _per_run_times(runs)
    seen = list(dict.fromkeys(node.name for node in runs[median].nodes))
    order = seen + [name for name in acc if name not in seen]
    total = sum(acc[name].per_run_ms[median] for name in order) or 1.0
    layers: list[Layer] = []
    index_of: dict[str, int] = {}
    for index, name in enumerate(order):
        entry = acc[name]
        times = entry.per_run_ms
        index_of[name] = index
        layers.append(
            Layer(
                index=index,
                name=name,
                type=entry.first.op_type,
                onnx_nodes=list(node_map.sources.get(name, [])),
                input_dims=entry.first.input_dims,
                output_dims=entry.first.output_dims,
                precision=entry.first.precision,
                provider=entry.first.provider,
                stream=0,
                median_ms=times[median],
                mean_ms=sum(times) / len(times),
                min_ms=min(times),
                max_ms=max(times),
                percent=100.0 * times[median] / total,
                overhead=entry.first.op_type in OVERHEAD_TYPES,
            )
        )
    run = runs[median]
    timeline = [
        TimelineEvent(
            layer=index_of[node.name],
            name=node.name,
            stream=0,
            start_ms=(node.start_us - run.start_us) / 1000.0,
            duration_ms=node.dur_us / 1000.0,
            overhead=node.op_type in OVERHEAD_TYPES,
        )
        for node in run.nodes
    ]
    return layers, timeline
