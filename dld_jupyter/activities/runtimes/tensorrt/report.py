"""TensorRT measurements -> the builder's layer records and the timeline of the median profiled pass.

A layer is one engine layer of the inspector's layer information (type, precision, dimensions, the ONNX nodes its
fused name carries, kept to real nodes of the model when an `OnnxIndex` is given); its time in a pass is what
`IProfiler.report_layer_time` gave it in that pass (summed when reported more than once, None when not at all).
IProfiler gives durations, not start times, so the timeline lays the median pass's layers end to end, between its
host->device and device->host copy rows (absent when non-compute operations are hidden).
"""

from __future__ import annotations

from collections.abc import Sequence

from dld_jupyter.activities.runtimes.base import PassTimes
from dld_jupyter.report_format.builder import LayerRecord
from dld_jupyter.report_format.engine_graph import EngineGraph, EngineLayer
from dld_jupyter.report_format.model import TimelineEvent
from dld_jupyter.report_format.trt_names import OnnxIndex, parse_layer_name

H2D_ROW = "H2D input copies"
D2H_ROW = "D2H output copies"


def _record(layer: EngineLayer | None, name: str, graph: EngineGraph | None, index: OnnxIndex | None) -> LayerRecord:
    parsed = parse_layer_name(name)
    if index is not None:
        nodes = index.link(parsed)  # ranges ({ForeignNode[a...b]}) expanded with the model
        extra = layer.onnx_nodes if layer else []  # includes TensorRT 10 "[ONNX Layer: ...]" metadata
        nodes += [n for n in (index.resolve(m) for m in extra) if n and n not in nodes]
    else:
        nodes = list(layer.onnx_nodes) if layer else list(parsed.sources)

    def dims(names: Sequence[str]) -> list[list[int | str]]:
        tensors = graph.tensors if graph is not None else {}
        return [list(tensors[t].dims) for t in names if t in tensors]

    return LayerRecord(
        name=name,
        type=layer.type if layer else {"reformat": "Reformat", "copy": "Copy"}.get(parsed.kind, "Unknown"),
        onnx_nodes=nodes,
        input_dims=dims(layer.inputs) if layer else [],
        output_dims=dims(layer.outputs) if layer else [],
        precision=layer.precision if layer else "N/A",
        overhead=layer.overhead if layer else parsed.overhead,
    )


def trt_layers(graph: EngineGraph | None, passes: Sequence[PassTimes], index: OnnxIndex | None) -> list[LayerRecord]:
    """One record per engine layer (engine order; layers only the profiler named come last), with per-pass times."""
    names = [layer.name for layer in graph.layers] if graph is not None else []
    seen = set(names)
    for timed in passes:
        for name, _ in timed.layers:
            if name not in seen:
                seen.add(name)
                names.append(name)
    by_name = {layer.name: layer for layer in graph.layers} if graph is not None else {}
    records = {name: _record(by_name.get(name), name, graph, index) for name in names}
    for record in records.values():
        record.times_ms = [None] * len(passes)
    for position, timed in enumerate(passes):
        for name, ms in timed.layers:
            times = records[name].times_ms
            times[position] = (times[position] or 0.0) + ms
    return list(records.values())


def trt_timeline(records: Sequence[LayerRecord], median: PassTimes, position: int) -> list[TimelineEvent]:
    events: list[TimelineEvent] = []
    at = 0.0
    if median.h2d_ms > 0:
        events.append(TimelineEvent(-1, H2D_ROW, 0, 0.0, median.h2d_ms, True))
        at = median.h2d_ms
    for layer_index, record in enumerate(records):
        duration = record.times_ms[position] if position < len(record.times_ms) else None
        if duration is None:
            continue
        events.append(TimelineEvent(layer_index, record.name, record.stream, at, duration, record.overhead))
        at += duration
    if median.d2h_ms > 0:
        events.append(TimelineEvent(-1, D2H_ROW, 0, at, median.d2h_ms, True))
    return events
