from __future__ import annotations

import pytest

from dld_jupyter.activities.runtimes.onnxruntime.trace import parse_events


def _node(name: str, ts: int, dur: int, op: str = "Conv") -> dict[str, object]:
    return {
        "cat": "Node",
        "name": f"{name}_kernel_time",
        "ts": ts,
        "dur": dur,
        "ph": "X",
        "args": {
            "op_name": op,
            "provider": "CPUExecutionProvider",
            "input_type_shape": [{"float16": [1, 3, 8, 8]}, {"float16": [4, 3, 3, 3]}],
            "output_type_shape": [{"float16": [1, 4, 8, 8]}],
        },
    }


def test_events_split_per_model_run_and_fences_ignored() -> None:
    events = [
        {"cat": "Session", "name": "session_initialization", "ts": 0, "dur": 50},
        {"cat": "Session", "name": "model_run", "ts": 100, "dur": 100},
        _node("a", 110, 20),
        {"cat": "Node", "name": "a_fence_before", "ts": 109, "dur": 0},
        _node("b", 140, 30, "Relu"),
        {"cat": "Session", "name": "model_run", "ts": 300, "dur": 100},
        _node("a", 310, 25),
        _node("b", 340, 35, "Relu"),
    ]
    runs = parse_events(events)
    assert [len(run.nodes) for run in runs] == [2, 2]
    first = runs[0].nodes[0]
    assert (first.name, first.op_type, first.dur_us, first.precision) == ("a", "Conv", 20.0, "FP16")
    assert first.input_dims == [[1, 3, 8, 8], [4, 3, 3, 3]] and first.output_dims == [[1, 4, 8, 8]]
    assert runs[1].nodes[1].start_us - runs[1].start_us == 40


def test_gpu_runs_get_copy_rows_before_the_first_node_and_after_the_last() -> None:
    """Input copies to the device and output copies back happen inside a run but outside every node event: they
    become overhead rows, so the layers add up to the pass."""
    from dld_jupyter.activities.runtimes.onnxruntime.report import COPY_ROWS, GAPS_ROW, ort_layers, with_copy_rows
    from dld_jupyter.activities.runtimes.onnxruntime.trace import NodeEvent, RunTrace

    runs = [
        RunTrace(
            start_us=1000.0 * r,
            dur_us=500.0 + r,
            nodes=[
                NodeEvent("conv", "Conv", "CUDAExecutionProvider", 1000.0 * r + 200, 100.0),
                NodeEvent("relu", "Relu", "CUDAExecutionProvider", 1000.0 * r + 310, 40.0),
            ],
        )
        for r in range(3)
    ]
    records, timeline = ort_layers(runs, 1, lambda name: [name])
    records, timeline = with_copy_rows(runs, 1, records, timeline)
    assert [r.name for r in records] == [COPY_ROWS[0], "conv", "relu", COPY_ROWS[1], GAPS_ROW]
    assert records[0].times_ms == [0.2, 0.2, 0.2] and records[0].overhead and records[3].overhead
    assert records[3].times_ms == pytest.approx([0.15, 0.151, 0.152])
    by_layer = {e.layer: e for e in timeline}
    assert (by_layer[0].start_ms, by_layer[0].duration_ms) == (0.0, 0.2)
    assert by_layer[1].name == "conv" and by_layer[2].name == "relu"
    assert by_layer[3].start_ms == pytest.approx(0.501 - 0.151) and by_layer[3].duration_ms == pytest.approx(0.151)
    in_median = sum(r.times_ms[1] or 0.0 for r in records)
    assert in_median == pytest.approx(0.501)  # the rows add up to the pass
    assert records[4].times_ms[1] == pytest.approx(0.01)  # the 10 µs between the two kernels


def test_the_host_row_takes_each_pass_time_outside_orts_run() -> None:
    from dld_jupyter.activities.runtimes.onnxruntime.report import HOST_ROW, ort_layers, with_copy_rows, with_host_row
    from dld_jupyter.activities.runtimes.onnxruntime.trace import NodeEvent, RunTrace

    runs = [
        RunTrace(start_us=0.0, dur_us=400.0, nodes=[NodeEvent("conv", "Conv", "CUDAExecutionProvider", 50.0, 300.0)])
        for _ in range(3)
    ]
    records, timeline = ort_layers(runs, 1, lambda name: [name])
    records, _ = with_copy_rows(runs, 1, records, timeline)
    wall = [0.43, 0.45, 0.39]  # perf_counter around session.run: the binding's time comes on top of ORT's 0.4 ms
    records = with_host_row(runs, wall, records)
    host = records[-1]
    assert host.name == HOST_ROW and host.overhead and host.type == "Overhead"
    assert host.times_ms == pytest.approx([0.03, 0.05, 0.0])  # never negative: a pass ORT timed as longer counts 0
    assert sum(r.times_ms[1] or 0.0 for r in records) == pytest.approx(0.45)  # the rows add up to the wall pass
