"""Parse ONNX Runtime's own profiler output (chrome-trace JSON from `SessionOptions.enable_profiling`).

The one parser of ORT traces: the profiler (`onnxruntime` backend) and the trace import (`reports.ort_trace`) both
read runs and node events through it. ORT profiles every run of the session, so node events are split per run by
the "model_run" session events; a trace without them is one run. Only "Node" events named `<node>_kernel_time` are
layer executions; fence events and GPU kernel events carry no node time of their own.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.json_input import read_json

KERNEL_SUFFIX = "_kernel_time"

# ORT's type names in input_type_shape → the precision names of the report (seed 000 layer table).
PRECISIONS = {
    "float": "FP32",
    "float16": "FP16",
    "bfloat16": "BF16",
    "double": "FP64",
    "int8": "INT8",
    "uint8": "UINT8",
    "int16": "INT16",
    "uint16": "UINT16",
    "int32": "INT32",
    "uint32": "UINT32",
    "int64": "INT64",
    "uint64": "UINT64",
    "bool": "BOOL",
    "string": "STRING",
    "float8e4m3fn": "FP8",
    "float8e5m2": "FP8",
    "int4": "INT4",
}


@dataclass
class NodeEvent:
    name: str  # ORT node name (the ONNX node name, or the optimizer's name for fused nodes)
    op_type: str
    provider: str
    start_us: float
    dur_us: float
    input_dims: list[list[int | str]] = field(default_factory=list)
    output_dims: list[list[int | str]] = field(default_factory=list)
    precision: str = "N/A"  # of the first input tensor
    thread: int = 0  # the trace's tid: threads of the parallel executor become timeline streams


@dataclass
class RunTrace:
    start_us: float
    dur_us: float
    nodes: list[NodeEvent] = field(default_factory=list)


def _shapes(entries: Any) -> tuple[list[list[int | str]], str]:
    dims: list[list[int | str]] = []
    first_type = ""
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry:
            type_name, shape = next(iter(entry.items()))
            first_type = first_type or str(type_name)
            dims.append([d if isinstance(d, int) else str(d) for d in shape] if isinstance(shape, list) else [])
    return dims, PRECISIONS.get(first_type, first_type.upper() or "N/A")


def node_event(event: dict[str, Any]) -> NodeEvent | None:
    """The node execution of a trace event, or None for any other event."""
    name = node_event_name(event)
    if name is None:
        return None
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    assert isinstance(args, dict)
    inputs, precision = _shapes(args.get("input_type_shape"))
    outputs, _ = _shapes(args.get("output_type_shape"))
    return NodeEvent(
        name=name,
        op_type=str(args.get("op_name", "")),
        provider=str(args.get("provider", "")),
        start_us=float(event.get("ts", 0)),
        dur_us=float(event.get("dur", 0)),
        input_dims=inputs,
        output_dims=outputs,
        precision=precision,
        thread=int(event.get("tid", 0)),
    )


def event_problem(event: dict[str, Any]) -> str | None:
    """Why a run or node event cannot be used (None when it can, and for every other event, which is skipped).

    `node_event` and `parse_events` convert fields with float()/int(): a string "ts" or a list "tid" must be
    refused before, with the field named, instead of a raw ValueError from inside.
    """
    is_run = event.get("cat") == "Session" and event.get("name") == "model_run"
    if not is_run and node_event_name(event) is None:
        return None
    for key in ("ts", "dur"):
        value = event.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f'"{key}" must be a number of microseconds, found {json.dumps(value)[:40]}'
        if key == "dur" and value < 0:
            return f'"dur" is {value}: a duration cannot be negative'
    if is_run:
        return None
    tid = event.get("tid", 0)
    if isinstance(tid, bool) or not isinstance(tid, int):
        return f'"tid" must be a whole thread number, found {json.dumps(tid)[:40]}'
    if "args" in event and not isinstance(event["args"], dict):
        return f'"args" must be an object, found {json.dumps(event["args"])[:40]}'
    return None


def node_event_name(event: dict[str, Any]) -> str | None:
    """The node name of a node execution event (`<node>_kernel_time`, category "Node"); None for other events."""
    name = event.get("name")
    if event.get("cat") != "Node" or not isinstance(name, str) or not name.endswith(KERNEL_SUFFIX):
        return None
    return name.removesuffix(KERNEL_SUFFIX)


def parse_events(events: list[dict[str, Any]]) -> list[RunTrace]:
    """Runs in order, each with the node events inside it; runs without nodes are left out."""
    runs = sorted(
        (
            RunTrace(float(e.get("ts", 0)), float(e.get("dur", 0)))
            for e in events
            if e.get("cat") == "Session" and e.get("name") == "model_run"
        ),
        key=lambda run: run.start_us,
    )
    nodes = sorted((n for n in map(node_event, events) if n is not None), key=lambda node: node.start_us)
    if not runs:  # a trace without run markers: all nodes form one pass
        start = nodes[0].start_us if nodes else 0.0
        end = max((n.start_us + n.dur_us for n in nodes), default=0.0)
        return [RunTrace(start, end - start, nodes)]
    starts = [run.start_us for run in runs]
    for node in nodes:  # bisect: a long profile has thousands of runs times thousands of nodes
        pos = bisect.bisect_right(starts, node.start_us) - 1
        if pos >= 0 and node.start_us <= runs[pos].start_us + runs[pos].dur_us:
            runs[pos].nodes.append(node)
    return [run for run in runs if run.nodes]


def trace_events(data: object) -> list[dict[str, Any]] | None:
    """The event list of decoded trace JSON (a list, or an object with "traceEvents"); None for anything else."""
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        return None
    return events


def parse_profile(path: str | Path) -> list[RunTrace]:
    """Runs of the trace file ORT's `end_profiling()` wrote (read with the same bounds as any outside JSON)."""
    return parse_events(trace_events(read_json(path, "ONNX Runtime profile")) or [])
