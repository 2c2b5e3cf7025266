"""Import a raw ONNX Runtime profile (the Chrome-trace JSON of `SessionOptions.enable_profiling`) as a report.

For users who profiled elsewhere. The trace holds one `model_run` event per `InferenceSession.run` and one
`<node>_kernel_time` event (category "Node") per executed node, with `op_name`, `provider` and
`input_type_shape`/`output_type_shape` in its args. Node events are assigned to the run whose time range holds
them; the first `warmup` runs are dropped; the median run gives the layer table and the timeline, every
measured run gives the per-layer mean/min/max. Threads of the parallel executor become timeline streams.
Parsing and layer assembly are the profiler's own (`activities.runtimes.onnxruntime.trace`, `ort_report`), the report is
put together by `report_format.builder`; this module only reads the file and says what is wrong with it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

# One parser and one layer assembly for the profiler and this import: the same trace gives the same layers.
from dld_jupyter.activities.runtimes.onnxruntime.report import ort_layers
from dld_jupyter.activities.runtimes.onnxruntime.trace import event_problem, parse_events, trace_events
from dld_jupyter.report_format.builder import RunInfo, build_report, layer_pass_index
from dld_jupyter.report_format.io import ReportError
from dld_jupyter.report_format.json_input import read_json
from dld_jupyter.report_format.model import Report


def read_trace(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The events of an ONNX Runtime profile file, with clear errors for anything else."""
    file = Path(path)
    data = read_json(file, "ONNX Runtime profile", "the file InferenceSession.end_profiling() names")
    events = trace_events(data)
    if events is None:
        raise ReportError(f"{file}: expected a JSON list of trace events as ONNX Runtime writes.")
    if not any(e.get("cat") == "Node" for e in events):
        raise ReportError(f'{file}: no "Node" events: not an ONNX Runtime profile, or profiling saw no run.')
    for pos, event in enumerate(events):
        problem = event_problem(event)
        if problem is not None:
            raise ReportError(f"{file}: event {pos} ({str(event.get('name'))[:60]!r}): {problem}.")
    return events


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
    runs = parse_events(read_trace(path))
    if warmup < 0 or warmup >= len(runs):
        raise ReportError(f"{path}: cannot drop {warmup} warm-up run(s): the profile holds {len(runs)} run(s).")
    measured = runs[warmup:]
    passes_ms = [run.dur_us / 1000.0 for run in measured]
    median = layer_pass_index(passes_ms)
    names = _node_names(model) if model is not None else None
    records, timeline = ort_layers(measured, median, lambda name: [name] if names is None or name in names else [])
    providers = [record.provider for record in records if record.provider]
    provider = max(set(providers), key=providers.count) if providers else "CPUExecutionProvider"
    run = RunInfo(
        model=Path(model).stem if model is not None else Path(path).stem,
        model_path=str(model) if model is not None else "",
        backend="onnxruntime",
        provider=provider,
        device="CPU" if provider.startswith("CPU") else provider,
        settings={
            "source": "onnxruntime-profile",
            "files": {"trace": str(path)},
            "warmup_runs_dropped": warmup,
            "timeline": "node start times of the median run, relative to its model_run event",
        },
    )
    removed = sorted(names - {record.name for record in records}) if names is not None else []
    return build_report(
        run,
        passes_ms,
        records,
        timeline=timeline,
        median_layer_pass=median,
        warmup_passes=warmup,
        removed_nodes=removed,
    )
