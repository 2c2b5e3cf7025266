"""A native Perfetto trace of a report's median pass (TrackEvent protobuf), beside the Chrome JSON of `export`.

What Chrome JSON cannot say well, this does: a track per host stream (the layers as slices) and per CUDA stream
(the kernels, memcpy and memset of the median pass, from `kernels`), a counter track per GPU metric, and a flow from
each host call to every kernel it launched. Slices nest strictly on every track: a slice that would overlap another
without containing it goes to a sibling track ("… (2)") instead of being clipped, so no time is changed.
Built with the `perfetto` package's published trace protos (perfetto_trace_pb2) and its TraceProtoBuilder, so no
field number is kept here; tests decode the file with the same definitions and compare it, packet by packet, with
the trace the earlier hand-written encoder wrote (tests/reports/test_perfetto_golden.py).
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.activities.optional import import_optional
from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.report_format.model import Report

WHAT = "perfetto (its trace protos write the .pftrace export: pip install perfetto)"
PID = 1
PROCESS_UUID = 1
SEQUENCE = 1  # one writer: every packet on trusted sequence 1, the first clearing its incremental state


@dataclass
class Slice:
    start_ns: int
    end_ns: int
    name: str
    category: str
    args: dict[str, Any] = field(default_factory=dict)
    flows: list[int] = field(default_factory=list)  # flows leaving this slice (host call → its kernels)
    ends_flows: list[int] = field(default_factory=list)  # flows arriving here (a kernel)


def _text(value: str) -> str:
    """Valid UTF-8 text (a lone surrogate becomes "?"): protobuf refuses anything else."""
    return value.encode("utf-8", "replace").decode("utf-8")


def _annotate(event: Any, name: str, value: Any) -> None:
    note = event.debug_annotations.add()
    note.name = _text(name)
    if isinstance(value, bool):
        note.bool_value = value
    elif isinstance(value, int):
        note.int_value = value
    elif isinstance(value, float):
        note.double_value = value
    else:
        note.string_value = _text(", ".join(map(str, value)) if isinstance(value, list) else str(value))


def lanes(slices: Sequence[Slice]) -> list[list[Slice]]:
    """Split slices into lanes on which every two slices are disjoint or one contains the other."""
    result: list[tuple[list[Slice], list[int]]] = []  # (lane slices, stack of open end times)
    for piece in sorted(slices, key=lambda s: (s.start_ns, -s.end_ns)):
        for lane, stack in result:
            while stack and stack[-1] <= piece.start_ns:
                stack.pop()
            if not stack or piece.end_ns <= stack[-1]:
                lane.append(piece)
                stack.append(piece.end_ns)
                break
        else:
            result.append(([piece], [piece.end_ns]))
    return [lane for lane, _ in result]


Event = tuple[int, int, int, Any]  # (timestamp, track uuid, order on the track, what to write: see _fill)


def _slice_events(track: int, lane: list[Slice]) -> Iterator[Event]:
    """The begin and end events of a lane in order, ends before begins at one time except a slice's own end."""
    open_: list[Slice] = []
    order = 0
    for piece in lane:
        while open_ and open_[-1].end_ns <= piece.start_ns:
            order += 1
            yield open_[-1].end_ns, track, order, ("end", open_.pop())
        order += 1
        yield piece.start_ns, track, order, ("begin", piece)
        open_.append(piece)
    while open_:
        order += 1
        yield open_[-1].end_ns, track, order, ("end", open_.pop())


def _fill(event: Any, track: int, what: tuple[str, Any], pb2: Any) -> None:
    """A TrackEvent: a slice's begin (name, category, annotations, flows) or end, or a counter's value."""
    kind, data = what
    event.track_uuid = track
    if kind == "counter":
        event.type = pb2.TrackEvent.TYPE_COUNTER
        event.double_counter_value = data
    elif kind == "end":
        event.type = pb2.TrackEvent.TYPE_SLICE_END
    else:
        event.type = pb2.TrackEvent.TYPE_SLICE_BEGIN
        event.categories.append(_text(data.category))
        event.name = _text(data.name)
        for key, value in data.args.items():
            _annotate(event, key, value)
        event.flow_ids.extend(data.flows)
        event.terminating_flow_ids.extend(data.ends_flows)


def _track(packet: Any, uuid: int, name: str, rank: int, thread: int | None = None, unit: str | None = None) -> None:
    track = packet.track_descriptor
    track.uuid, track.parent_uuid, track.name, track.sibling_order_rank = uuid, PROCESS_UUID, _text(name), rank
    if thread is not None:
        track.thread.pid, track.thread.tid, track.thread.thread_name = PID, thread, _text(name)
    if unit is not None:
        track.counter.unit_name = _text(unit)


def host_and_gpu_slices(report: Report, ns: Any) -> tuple[dict[str, list[Slice]], dict[str, list[Slice]]]:
    """Slices per host stream (the timeline) and per CUDA stream (the median pass's kernels), flows linked."""
    host: dict[str, list[Slice]] = {}
    calls: dict[int, list[Slice]] = {}  # layer index → its host slices in the median pass
    for event in report.timeline:
        args: dict[str, Any] = {"overhead": event.overhead}
        if 0 <= event.layer < len(report.layers):
            layer = report.layers[event.layer]
            args.update(type=layer.type, precision=layer.precision, onnx_nodes=layer.onnx_nodes)
        start = ns(event.start_ms)
        piece = Slice(start, max(start, ns(event.start_ms + event.duration_ms)), event.name,
                      "overhead" if event.overhead else "layer", args)
        host.setdefault(f"Host stream {event.stream}", []).append(piece)
        calls.setdefault(event.layer, []).append(piece)
    gpu: dict[str, list[Slice]] = {}
    median = report.kernel_capture.get("median_pass")
    for number, record in enumerate(k for k in report.kernels if k.pass_index == median):
        start = ns(record.start_ms)
        args = {"duration_ms": record.duration_ms, "layer": record.layer, "tensor_core": record.tensor_core}
        if record.kind == "kernel":
            args.update(grid=record.grid, block=record.block, registers=record.registers,
                        shared_memory_bytes=record.shared_memory_bytes)
        else:
            args.update(bytes=record.bytes)
        piece = Slice(start, max(start, ns(record.start_ms + record.duration_ms)), record.name, record.kind, args)
        gpu.setdefault(f"CUDA stream {record.stream}", []).append(piece)
        launch = ns(record.launch_ms) if record.launch_ms is not None else None
        owners = calls.get(record.layer, []) if record.layer >= 0 else []
        owner = next((c for c in owners if launch is not None and c.start_ns <= launch <= c.end_ns), None)
        if owner is not None or owners:
            flow = number + 1
            (owner or owners[0]).flows.append(flow)
            piece.ends_flows.append(flow)
    return host, gpu


def to_perfetto(report: Report) -> bytes:
    """The report's median pass as a Perfetto protobuf trace (`Trace` of `TracePacket`s)."""
    pb2 = import_optional("perfetto.protos.perfetto.trace.perfetto_trace_pb2", WHAT)
    builder = import_optional("perfetto.trace_builder.proto_builder", WHAT)
    times = [e.start_ms for e in report.timeline] + [t for m in report.gpu_metrics for t in m.times_ms]
    times += [k.start_ms for k in report.kernels] + [k.launch_ms for k in report.kernels if k.launch_ms is not None]
    shift_ms = max(0.0, -min(times, default=0.0))  # Perfetto timestamps are unsigned: the earliest lands at 0

    def ns(ms: float) -> int:
        return round((ms + shift_ms) * 1e6)

    trace = builder.TraceProtoBuilder()

    def packet(timestamp: int | None = None) -> Any:
        added = trace.add_packet()
        if timestamp is not None:
            added.timestamp = timestamp
        added.trusted_packet_sequence_id = SEQUENCE
        return added

    s = report.summary
    first = packet()
    first.sequence_flags = pb2.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    first.track_descriptor.uuid = PROCESS_UUID
    first.track_descriptor.process.pid = PID
    first.track_descriptor.process.process_name = _text(f"{s.model} ({s.backend}, {s.provider})")
    host, gpu = host_and_gpu_slices(report, ns)
    streams: list[list[Event]] = []  # lists, not generators: `uuid` changes in the loop
    uuid = PROCESS_UUID
    for rank, (name, slices) in enumerate([*sorted(host.items()), *sorted(gpu.items())]):
        for number, lane in enumerate(lanes(slices)):
            uuid += 1
            _track(packet(), uuid, name if number == 0 else f"{name} ({number + 1})", rank * 100 + number, thread=uuid)
            streams.append(list(_slice_events(uuid, lane)))
    for series in report.gpu_metrics:
        uuid += 1
        _track(packet(), uuid, series.label, 10_000 + uuid, unit=series.unit)
        streams.append([(ns(t), uuid, i, ("counter", v))
                        for i, (t, v) in enumerate(zip(series.times_ms, series.values, strict=True))])
    for timestamp, track, _, what in heapq.merge(*streams, key=lambda e: e[:3]):
        _fill(packet(timestamp).track_event, track, what, pb2)
    return bytes(trace.serialize())


def write_perfetto(report: Report, path: str | os.PathLike[str]) -> Path:
    """Write the Perfetto trace atomically (`.pftrace`; opens in ui.perfetto.dev)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_bytes(file, to_perfetto(report))
