"""Parse ONNX Runtime's own profiler output (chrome-trace JSON from `SessionOptions.enable_profiling`).

ORT profiles every run of the session, so node events are split per run by the "model_run" session events.
Only "Node" events named `<node>_kernel_time` are layer executions; fence events are ORT bookkeeping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def node_event(event: dict[str, Any]) -> NodeEvent:
    args = event.get("args", {})
    inputs, precision = _shapes(args.get("input_type_shape"))
    outputs, _ = _shapes(args.get("output_type_shape"))
    return NodeEvent(
        name=str(event["name"])[: -len(KERNEL_SUFFIX)],
        op_type=str(args.get("op_name", "")),
        provider=str(args.get("provider", "")),
        start_us=float(event["ts"]),
        dur_us=float(event.get("dur", 0)),
        input_dims=inputs,
        output_dims=outputs,
        precision=precision,
    )


def parse_events(events: list[dict[str, Any]]) -> list[RunTrace]:
    """Runs in order, each with the kernel events that fall inside it."""
    runs = sorted(
        (RunTrace(float(e["ts"]), float(e.get("dur", 0))) for e in events if e.get("name") == "model_run"),
        key=lambda run: run.start_us,
    )
    kernels = sorted(
        (node_event(e) for e in events if e.get("cat") == "Node" and str(e.get("name", "")).endswith(KERNEL_SUFFIX)),
        key=lambda node: node.start_us,
    )
    index = 0
    for node in kernels:
        while index < len(runs) and node.start_us > runs[index].start_us + runs[index].dur_us:
            index += 1
        if index < len(runs) and node.start_us >= runs[index].start_us:
            runs[index].nodes.append(node)
    return runs


def parse_profile(path: str | Path) -> list[RunTrace]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return parse_events([e for e in events if isinstance(e, dict)])
