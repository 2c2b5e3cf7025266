"""A native Perfetto trace of a report's median pass (TrackEvent protobuf), beside the Chrome JSON of `export`.

What Chrome JSON cannot say well, this does: a track per host stream (the layers as slices) and per CUDA stream
(the kernels, memcpy and memset of the median pass, from `kernels`), a counter track per GPU metric, and a flow from
each host call to every kernel it launched. Slices nest strictly on every track: a slice that would overlap another
without containing it goes to a sibling track ("… (2)") instead of being clipped, so no time is changed.
Field numbers are those of Perfetto's protos/perfetto/trace (trace_packet.proto, track_event/*.proto); tests decode
the file with Perfetto's own published definitions (the `perfetto` package's perfetto_trace_pb2).
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.formats import protobuf_wire as w
from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.report_format.model import Report

# TracePacket
PACKET, TIMESTAMP, SEQUENCE_ID, TRACK_EVENT, TRACK_DESCRIPTOR, SEQUENCE_FLAGS = 1, 8, 10, 11, 60, 13
SEQ_INCREMENTAL_STATE_CLEARED = 1
# TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor
TD_UUID, TD_NAME, TD_PROCESS, TD_THREAD, TD_PARENT, TD_COUNTER, TD_ORDER_RANK = 1, 2, 3, 4, 5, 8, 12
PD_PID, PD_NAME = 1, 6
THD_PID, THD_TID, THD_NAME = 1, 2, 5
CD_UNIT_NAME = 6
# TrackEvent and DebugAnnotation
TE_ANNOTATION, TE_TYPE, TE_TRACK, TE_CATEGORY, TE_NAME = 4, 9, 11, 22, 23
TE_DOUBLE_COUNTER, TE_FLOWS, TE_END_FLOWS = 44, 47, 48
SLICE_BEGIN, SLICE_END, COUNTER = 1, 2, 4
DA_BOOL, DA_INT, DA_DOUBLE, DA_STRING, DA_NAME = 2, 4, 5, 6, 10

PID = 1
PROCESS_UUID = 1


@dataclass
class Slice:
    start_ns: int
    end_ns: int
    name: str
    category: str
    args: dict[str, Any] = field(default_factory=dict)
    flows: list[int] = field(default_factory=list)  # flows leaving this slice (host call → its kernels)
    ends_flows: list[int] = field(default_factory=list)  # flows arriving here (a kernel)


def _annotation(name: str, value: Any) -> bytes:
    body = w.string(DA_NAME, name)
    if isinstance(value, bool):
        body += w.uint(DA_BOOL, value)
    elif isinstance(value, int):
        body += w.uint(DA_INT, value)
    elif isinstance(value, float):
        body += w.double(DA_DOUBLE, value)
    else:
        body += w.string(DA_STRING, ", ".join(map(str, value)) if isinstance(value, list) else str(value))
    return w.message(TE_ANNOTATION, body)


def _packet(body: bytes, timestamp: int | None = None) -> bytes:
    head = w.uint(TIMESTAMP, timestamp) if timestamp is not None else b""
    return w.message(PACKET, head + w.uint(SEQUENCE_ID, 1) + body)


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


def _slice_events(track: int, lane: list[Slice]) -> Iterator[tuple[int, int, bytes]]:
    """(timestamp, order, packet body) of a lane, ends before begins at one time except a slice's own end."""
    open_: list[Slice] = []
    order = 0

    def end(piece: Slice) -> tuple[int, int, bytes]:
        nonlocal order
        order += 1
        event = w.uint(TE_TYPE, SLICE_END) + w.uint(TE_TRACK, track)
        return piece.end_ns, order, w.message(TRACK_EVENT, event)

    for piece in lane:
        while open_ and open_[-1].end_ns <= piece.start_ns:
            yield end(open_.pop())
        event = w.join(
            [w.uint(TE_TYPE, SLICE_BEGIN), w.uint(TE_TRACK, track), w.string(TE_CATEGORY, piece.category),
             w.string(TE_NAME, piece.name)]
            + [_annotation(k, v) for k, v in piece.args.items()]
            + [w.fixed64(TE_FLOWS, flow) for flow in piece.flows]
            + [w.fixed64(TE_END_FLOWS, flow) for flow in piece.ends_flows]
        )
        order += 1
        yield piece.start_ns, order, w.message(TRACK_EVENT, event)
        open_.append(piece)
    while open_:
        yield end(open_.pop())


def _track(uuid: int, name: str, rank: int, thread: int | None = None, unit: str | None = None) -> bytes:
    body = w.uint(TD_UUID, uuid) + w.uint(TD_PARENT, PROCESS_UUID) + w.string(TD_NAME, name)
    body += w.uint(TD_ORDER_RANK, rank)
    if thread is not None:
        body += w.message(TD_THREAD, w.uint(THD_PID, PID) + w.uint(THD_TID, thread) + w.string(THD_NAME, name))
    if unit is not None:
        body += w.message(TD_COUNTER, w.string(CD_UNIT_NAME, unit))
    return w.message(TRACK_DESCRIPTOR, body)


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
    times = [e.start_ms for e in report.timeline] + [t for m in report.gpu_metrics for t in m.times_ms]
    times += [k.start_ms for k in report.kernels] + [k.launch_ms for k in report.kernels if k.launch_ms is not None]
    shift_ms = max(0.0, -min(times, default=0.0))  # Perfetto timestamps are unsigned: the earliest lands at 0

    def ns(ms: float) -> int:
        return round((ms + shift_ms) * 1e6)

    s = report.summary
    process = w.uint(TD_UUID, PROCESS_UUID) + w.message(
        TD_PROCESS, w.uint(PD_PID, PID) + w.string(PD_NAME, f"{s.model} ({s.backend}, {s.provider})")
    )
    out = [_packet(w.uint(SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED) + w.message(TRACK_DESCRIPTOR, process))]
    host, gpu = host_and_gpu_slices(report, ns)
    streams: list[list[tuple[int, int, int, bytes]]] = []  # lists, not generators: `uuid` changes in the loop
    uuid = PROCESS_UUID
    for rank, (name, slices) in enumerate([*sorted(host.items()), *sorted(gpu.items())]):
        for number, lane in enumerate(lanes(slices)):
            uuid += 1
            label = name if number == 0 else f"{name} ({number + 1})"
            out.append(_packet(_track(uuid, label, rank * 100 + number, thread=uuid)))
            streams.append([(t, uuid, o, b) for t, o, b in _slice_events(uuid, lane)])
    for series in report.gpu_metrics:
        uuid += 1
        out.append(_packet(_track(uuid, series.label, 10_000 + uuid, unit=series.unit)))
        counter = w.uint(TE_TYPE, COUNTER) + w.uint(TE_TRACK, uuid)
        streams.append([
            (ns(t), uuid, i, w.message(TRACK_EVENT, counter + w.double(TE_DOUBLE_COUNTER, v)))
            for i, (t, v) in enumerate(zip(series.times_ms, series.values, strict=True))
        ])
    for timestamp, _, _, body in heapq.merge(*streams):
        out.append(_packet(body, timestamp))
    return w.join(out)


def write_perfetto(report: Report, path: str | os.PathLike[str]) -> Path:
    """Write the Perfetto trace atomically (`.pftrace`; opens in ui.perfetto.dev)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_bytes(file, to_perfetto(report))
