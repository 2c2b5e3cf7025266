"""Import a raw ONNX Runtime profile (the Chrome-trace JSON of `SessionOptions.enable_profiling`) as a report.

For users who profiled elsewhere. The trace holds one `model_run` event per `InferenceSession.run` and one
`<node>_kernel_time` event (category "Node") per executed node, with `op_name`, `provider` and
`input_type_shape`/`output_type_shape` in its args. Node events are assigned to the run whose time range holds
them; the first `warmup` runs are dropped; the median run gives the layer table and the timeline, every
measured run gives the per-layer mean/min/max. Threads of the parallel executor become timeline streams.
"""

from __future__ import annotations

import bisect
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

# One table for the profiler and this import: the same ORT trace gives the same precisions.
from dld_jupyter.activities.backends.ort_trace import KERNEL_SUFFIX, PRECISIONS
from dld_jupyter.reports.io import ReportError
from dld_jupyter.reports.model import Layer, Report, Summary, TimelineEvent
from dld_jupyter.reports.passes import spread


@dataclass
class _NodeEvent:
    name: str
    op: str
    provider: str
    tid: int
    ts: float  # µs
    dur: float  # µs
    args: dict[str, Any]


@dataclass
class _Run:
    ts: float
    dur: float
    nodes: list[_NodeEvent]


def read_trace(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The events of an ONNX Runtime profile file, with clear errors for anything else."""
    file = Path(path)
    if not file.is_file():
        raise ReportError(f"{file}: no such ONNX Runtime profile (the file InferenceSession.end_profiling() names).")
    try:
        data = json.loads(file.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReportError(f"{file}: not JSON ({exc}); pass the file ONNX Runtime's profiler wrote.") from exc
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise ReportError(f"{file}: expected a JSON list of trace events as ONNX Runtime writes.")
    if not any(e.get("cat") == "Node" for e in events):
        raise ReportError(f'{file}: no "Node" events: not an ONNX Runtime profile, or profiling saw no run.')
    return events


def _node(event: dict[str, Any]) -> _NodeEvent | None:
    name = str(event.get("name", ""))
    if event.get("cat") != "Node" or not name.endswith(KERNEL_SUFFIX):
        return None  # fence_before/fence_after and GPU kernel events carry no node time of their own
    args = event.get("args", {}) if isinstance(event.get("args"), dict) else {}
    return _NodeEvent(
        name.removesuffix(KERNEL_SUFFIX),
        str(args.get("op_name", "")),
        str(args.get("provider", "")),
        int(event.get("tid", 0)),
        float(event.get("ts", 0)),
        float(event.get("dur", 0)),
        args,
    )


def _runs(events: list[dict[str, Any]]) -> list[_Run]:
    runs = sorted(
        (
            _Run(float(e.get("ts", 0)), float(e.get("dur", 0)), [])
            for e in events
            if e.get("cat") == "Session" and e.get("name") == "model_run"
        ),
        key=lambda r: r.ts,
    )
    nodes = sorted((n for n in map(_node, events) if n is not None), key=lambda n: n.ts)
    if not runs:  # a trace without run markers: all nodes form one pass
        start = nodes[0].ts if nodes else 0.0
        end = max((n.ts + n.dur for n in nodes), default=0.0)
        return [_Run(start, end - start, nodes)]
    starts = [run.ts for run in runs]
    for node in nodes:  # bisect: a long profile has thousands of runs times thousands of nodes
        pos = bisect.bisect_right(starts, node.ts) - 1
        if pos >= 0 and node.ts <= runs[pos].ts + runs[pos].dur:
            runs[pos].nodes.append(node)
    return [run for run in runs if run.nodes]


def _keyed(run: _Run) -> dict[tuple[str, int], _NodeEvent]:
    """Node events of a run keyed by (name, occurrence): a node inside a Loop body runs several times."""
    seen: dict[str, int] = {}
    keyed: dict[tuple[str, int], _NodeEvent] = {}
    for node in run.nodes:
        k = seen.get(node.name, 0)
        seen[node.name] = k + 1
        keyed[(node.name, k)] = node
    return keyed


def _shapes(args: dict[str, Any], key: str) -> tuple[list[list[int | str]], str]:
    """(dims of every tensor, precision of the first) from input_type_shape / output_type_shape."""
    dims: list[list[int | str]] = []
    first = ""
    for entry in args.get(key, []) if isinstance(args.get(key), list) else []:
        if isinstance(entry, dict) and entry:
            kind, shape = next(iter(entry.items()))
            first = first or PRECISIONS.get(str(kind), str(kind).upper())
            dims.append([d if isinstance(d, int) else str(d) for d in shape] if isinstance(shape, list) else [])
    return dims, first


def _node_names(model: str | os.PathLike[str]) -> set[str]:
    import onnx  # lazy: only needed to link names

    try:
        proto = onnx.load(str(model), load_external_data=False)
    except Exception as exc:
        raise ReportError(f"{model}: not a readable ONNX model ({exc}).") from exc
    return {node.name for node in proto.graph.node}


def import_ort_trace(
    path: str | os.PathLike[str], model: str | os.PathLike[str] | None = None, warmup: int = 0
) -> Report:
    """Build a report from an ONNX Runtime profile; `warmup` first runs are left out of the statistics."""
    runs = _runs(read_trace(path))
    if warmup < 0 or warmup >= len(runs):
        raise ReportError(f"{path}: cannot drop {warmup} warm-up run(s): the profile holds {len(runs)} run(s).")
    measured = runs[warmup:]
    passes_ms = [run.dur / 1000.0 for run in measured]
    s = spread(passes_ms)
    median_run = measured[s.median_index]
    all_keyed = [_keyed(run) for run in measured]
    names = _node_names(model) if model is not None else None
    streams: dict[int, int] = {}
    layers: list[Layer] = []
    timeline: list[TimelineEvent] = []
    for pos, (key, node) in enumerate(_keyed(median_run).items()):
        times = [k[key].dur / 1000.0 for k in all_keyed if key in k]
        input_dims, precision = _shapes(node.args, "input_type_shape")
        output_dims, _ = _shapes(node.args, "output_type_shape")
        stream = streams.setdefault(node.tid, len(streams))
        linked = [node.name] if names is None or node.name in names else []
        layers.append(
            Layer(
                index=pos,
                name=node.name,
                type=node.op or "Unknown",
                onnx_nodes=linked,
                input_dims=input_dims,
                output_dims=output_dims,
                precision=precision or "N/A",
                provider=node.provider,
                stream=stream,
                median_ms=node.dur / 1000.0,
                mean_ms=sum(times) / len(times),
                min_ms=min(times),
                max_ms=max(times),
                overhead=node.op in ("MemcpyToHost", "MemcpyFromHost"),
            )
        )
        timeline.append(
            TimelineEvent(
                pos,
                node.name,
                stream,
                (node.ts - median_run.ts) / 1000.0,
                node.dur / 1000.0,
                layers[-1].overhead,
            )
        )
    layer_sum = sum(layer.median_ms for layer in layers)
    for layer in layers:
        layer.percent = 100.0 * layer.median_ms / layer_sum if layer_sum > 0 else 0.0
    providers = [layer.provider for layer in layers if layer.provider]
    provider = max(set(providers), key=providers.count) if providers else "CPUExecutionProvider"
    summary = Summary(
        model=Path(model).stem if model is not None else Path(path).stem,
        model_path=str(model) if model is not None else "",
        backend="onnxruntime",
        provider=provider,
        device="CPU" if provider.startswith("CPU") else provider,
        median_ms=s.median_ms,
        passes=len(measured),
        warmup_passes=warmup,
        min_ms=s.min_ms,
        p90_ms=s.p90_ms,
        max_ms=s.max_ms,
        mean_ms=s.mean_ms,
        stable=s.stable,
        stability_note=s.note,
        median_pass_index=s.median_index,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        settings={
            "source": "onnxruntime-profile",
            "files": {"trace": str(path)},
            "warmup_runs_dropped": warmup,
            "timeline": "node start times of the median run, relative to its model_run event",
        },
    )
    removed = sorted(names - {layer.name for layer in layers}) if names is not None else []
    return Report(summary=summary, passes_ms=passes_ms, layers=layers, timeline=timeline, removed_nodes=removed)
