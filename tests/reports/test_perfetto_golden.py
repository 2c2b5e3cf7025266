"""The Perfetto export decodes exactly as it did when its golden files were written (tests/data/perfetto, by the
hand-written protobuf encoder it had before it was built with the `perfetto` package's protos, issue 40): every
packet equal, field by field, as Perfetto's published perfetto_trace_pb2 reads it: the same tracks (names, uuids,
threads, counter units, order), slices (begin/end, names, categories, debug annotations), flows and counters."""

from __future__ import annotations

import pytest
from google.protobuf import text_format
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb2

from dld_jupyter.reports.perfetto import to_perfetto
from tests.reports.perfetto_fixtures import fixtures, golden

FIXTURES = fixtures()


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_export_decodes_packet_for_packet_as_the_golden_trace(name: str) -> None:
    expected = pb2.Trace.FromString(golden(name))
    found = pb2.Trace.FromString(to_perfetto(FIXTURES[name]))
    assert len(found.packet) == len(expected.packet)
    for number, (ours, theirs) in enumerate(zip(found.packet, expected.packet, strict=True)):
        assert ours == theirs, (f"packet {number} differs:\n{text_format.MessageToString(ours)}\nexpected:\n"
                                f"{text_format.MessageToString(theirs)}")
    assert sum(p.HasField("track_descriptor") for p in found.packet) > 10
    assert any(p.track_event.flow_ids for p in found.packet) and any(p.track_event.terminating_flow_ids
                                                                       for p in found.packet)
    assert any(p.track_event.type == pb2.TrackEvent.TYPE_COUNTER for p in found.packet)


def test_chrome_json_carries_the_kernels_as_gpu_rows() -> None:
    """The Chrome JSON export (`dld report trace`, the default format) has the .pftrace's CUDA stream slices too: a
    GPU process with a thread per stream, each kernel/copy a complete event, each launch a flow from its host call."""
    from dld_jupyter.reports.export import to_trace

    report = FIXTURES["h100_kernels"]
    events = to_trace(report)["traceEvents"]
    trace = pb2.Trace.FromString(to_perfetto(report))
    tracks = {p.track_descriptor.uuid: p.track_descriptor.name for p in trace.packet if p.HasField("track_descriptor")}
    begins = [p for p in trace.packet if p.track_event.type == pb2.TrackEvent.TYPE_SLICE_BEGIN]
    cuda = sorted((tracks[p.track_event.track_uuid].split(" (")[0], p.track_event.name) for p in begins
                  if tracks[p.track_event.track_uuid].startswith("CUDA stream"))
    threads = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"
               and e["pid"] == 2}
    rows = sorted((threads[e["tid"]], e["name"]) for e in events if e["ph"] == "X" and e["pid"] == 2)
    assert cuda and rows == cuda
    assert any(e["ph"] == "M" and e["pid"] == 2 and e["args"].get("name", "").startswith("GPU: ") for e in events)
    starts = {e["id"] for e in events if e["ph"] == "s" and e["pid"] == 1}
    ends = {e["id"] for e in events if e["ph"] == "f" and e["pid"] == 2}
    assert starts == ends == {f for p in begins for f in p.track_event.flow_ids}
    kernel = next(e for e in events if e["ph"] == "X" and e["pid"] == 2 and e["cat"] == "kernel")
    assert {"grid", "block", "registers", "layer"} <= set(kernel["args"]) and kernel["dur"] > 0
