from __future__ import annotations

from dld_jupyter.activities.backends.ort_trace import parse_events


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
