"""The native Perfetto export (issue 32), decoded with Perfetto's own published definitions (the `perfetto`
package's perfetto_trace_pb2): slices nest strictly on every track, each kernel flows from the host call that
launched it, counters carry the GPU metrics; on the H100 kernel-records report and on a real CPU profile."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb2  # Perfetto's published protos ([test] extra)

from dld_jupyter.activities.kinds.profile import run_profile
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.report_format.io import load_report, save_report
from dld_jupyter.report_format.model import Report, TimelineEvent
from dld_jupyter.reports.perfetto import to_perfetto

DATA = Path(__file__).resolve().parents[1] / "data"
KERNELS = DATA / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"


@dataclasses.dataclass
class Decoded:
    tracks: dict[int, str]
    slices: dict[int, list[dict[str, Any]]]  # track uuid → closed slices, in end order
    counters: dict[str, list[float]]


def decode(data: bytes) -> Decoded:
    """Rebuild the slices of every track from begin/end events, asserting they nest strictly (LIFO, inside)."""
    trace = pb2.Trace.FromString(data)
    TE = pb2.TrackEvent
    tracks = {p.track_descriptor.uuid: p.track_descriptor.name for p in trace.packet if p.HasField("track_descriptor")}
    open_: dict[int, list[dict[str, Any]]] = defaultdict(list)
    slices: dict[int, list[dict[str, Any]]] = defaultdict(list)
    last: dict[int, int] = {}
    counters: dict[str, list[float]] = defaultdict(list)
    for packet in trace.packet:
        if not packet.HasField("track_event"):
            continue
        event, ts = packet.track_event, packet.timestamp
        assert event.track_uuid in tracks
        assert ts >= last.get(event.track_uuid, 0), "events of a track go forward in time"
        last[event.track_uuid] = ts
        if event.type == TE.TYPE_COUNTER:
            counters[tracks[event.track_uuid]].append(event.double_counter_value)
        elif event.type == TE.TYPE_SLICE_BEGIN:
            stack = open_[event.track_uuid]
            annotations = {a.name: a for a in event.debug_annotations}
            piece = {"name": event.name, "category": list(event.categories), "start": ts, "flows":
                     list(event.flow_ids), "ends": list(event.terminating_flow_ids), "args": annotations}
            stack.append(piece)
        else:
            assert event.type == TE.TYPE_SLICE_END
            piece = open_[event.track_uuid].pop()  # an end closes the innermost open slice
            piece["end"] = ts
            slices[event.track_uuid].append(piece)
    assert all(not stack for stack in open_.values()), "every slice is closed"
    for pieces in slices.values():  # strict nesting: two slices are disjoint or one holds the other
        ordered = sorted(pieces, key=lambda p: (p["start"], -p["end"]))
        stack: list[dict[str, Any]] = []
        for piece in ordered:
            while stack and stack[-1]["end"] <= piece["start"]:
                stack.pop()
            assert not stack or piece["end"] <= stack[-1]["end"], f"{piece['name']} overlaps {stack[-1]['name']}"
            stack.append(piece)
    return Decoded(tracks, slices, counters)


def test_kernel_report_tracks_flows_and_counters() -> None:
    report = load_report(KERNELS)
    decoded = decode(to_perfetto(report))
    by_name = {name: uuid for uuid, name in decoded.tracks.items()}
    median = report.kernel_capture["median_pass"]
    kernels = [k for k in report.kernels if k.pass_index == median]
    gpu = decoded.slices[by_name[f"CUDA stream {kernels[0].stream}"]]
    host = decoded.slices[by_name["Host stream 0"]]
    assert len(gpu) == len(kernels) and len(host) == len(report.timeline)
    launched = {flow: piece for piece in host for flow in piece["flows"]}
    assert len(launched) == sum(len(p["flows"]) for p in host)  # a flow leaves one host call
    for piece in gpu:
        assert len(piece["ends"]) == 1, piece["name"]
        call = launched[piece["ends"][0]]
        layer = report.layers[piece["args"]["layer"].int_value]
        assert call["name"] == layer.name and call["start"] <= piece["start"]  # the node that launched it, earlier
    tensor = [p for p in gpu if p["args"]["tensor_core"].bool_value]
    assert len(tensor) == sum(1 for k in kernels if k.tensor_core) > 0
    for series in report.gpu_metrics:
        assert decoded.counters[series.label] == series.values


def test_overlapping_slices_go_to_a_sibling_track_unclipped() -> None:
    report = load_report(KERNELS)
    first = report.timeline[1]
    overlap = TimelineEvent(first.layer, "overlapping", first.stream, first.start_ms + first.duration_ms / 2,
                            first.duration_ms * 3)
    report = dataclasses.replace(report, timeline=[*report.timeline, overlap])
    decoded = decode(to_perfetto(report))
    sibling = next(uuid for uuid, name in decoded.tracks.items() if name == "Host stream 0 (2)")
    (piece,) = decoded.slices[sibling]
    assert piece["name"] == "overlapping"
    assert piece["end"] - piece["start"] == round(overlap.duration_ms * 1e6)


@pytest.fixture(scope="module")
def cpu_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = OrtProfileSpec(model=str(DATA / "real" / "mobilenet_v3_small_w05.onnx"), iterations=3, warmup=1)

    class Quiet:
        def progress(self, fraction: float, phase: str) -> None: ...

        def log(self, message: str, level: str = "info") -> None: ...

    report: Report = run_profile(spec, Quiet())
    return save_report(report, tmp_path_factory.mktemp("cpu") / "m.dld-report.json")


def test_cli_writes_perfetto_on_request_and_chrome_json_by_default(cpu_report: Path, tmp_path: Path) -> None:
    report = load_report(cpu_report)
    assert report.kernels == []
    cli = [sys.executable, "-m", "dld_jupyter.cli", "report", "trace", str(cpu_report)]
    subprocess.run([*cli, "--format", "perfetto", "-o", str(tmp_path / "t.pftrace")], check=True)
    decoded = decode((tmp_path / "t.pftrace").read_bytes())
    assert not any(name.startswith("CUDA stream") for name in decoded.tracks.values())
    assert sum(len(s) for s in decoded.slices.values()) == len(report.timeline)
    subprocess.run([*cli, "-o", str(tmp_path / "t.json")], check=True)
    assert (tmp_path / "t.json").read_text().startswith('{"traceEvents"')
