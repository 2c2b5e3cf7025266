"""Import real trtexec outputs as a report (backend "tensorrt"), so reports work before our TensorRT backend.

Inputs (only the profile is required):
- `--exportProfile` JSON: `[{"count": N}, {"name", "timeMs", "averageMs", "medianMs"?, "percentage"}, ...]`;
- `--exportLayerInfo` JSON (built with `--profilingVerbosity=detailed`): per layer `LayerType`,
  `Inputs`/`Outputs` with `Dimensions` and `Format/Datatype` ("Channel major FP16 format where channel % 8 ==
  0" -> FP16), and on TensorRT 10 a `Metadata` string naming the ONNX layers;
- `--exportTimes` JSON: one record per inference (`latencyMs`, `h2dMs`, `computeMs`, `d2hMs`, ...) -> passes;
- the ONNX model, to keep only source names that are ONNX nodes (see trt_names);
- TREx metadata JSON files (`*.profile.metadata.json`, `*.build.metadata.json`): device name, build options.

trtexec profiles carry one aggregate time per layer and no start times, so the timeline of "the median pass"
is the layers' median times laid end to end on their stream (said so in summary.settings["timeline"]).
The report is put together by `report_format.builder`, as every backend's and importer's is; the files are read and
their fields checked by `trtexec_input`, so nothing here meets a wrongly typed value.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.builder import LayerRecord, LayerTimes, RunInfo, build_report, layer_pass_index
from dld_jupyter.report_format.engine_graph import OVERHEAD_TYPES, parse_precision
from dld_jupyter.report_format.io import ReportError
from dld_jupyter.report_format.model import Report, TimelineEvent
from dld_jupyter.report_format.trt_names import OnnxIndex, metadata_sources, parse_layer_name
from dld_jupyter.reports.trtexec_input import read_layer_info, read_metadata, read_profile, read_times

Pathish = str | os.PathLike[str]




def _tensor_format(tensor: dict[str, Any]) -> str:
    return str(tensor.get("Format/Datatype", tensor.get("Datatype", tensor.get("Format", ""))))


def _dims(tensors: Sequence[Any]) -> list[list[int | str]]:
    return [
        [d if isinstance(d, int) else str(d) for d in t.get("Dimensions", [])] for t in tensors if isinstance(t, dict)
    ]


def _load_index(model: Pathish) -> OnnxIndex:
    import onnx  # lazy: the rest of the importer needs no onnx

    file = Path(model)
    if not file.is_file():
        raise ReportError(f"{file}: no such ONNX model.")
    try:
        proto = onnx.load(str(file), load_external_data=False)
    except Exception as exc:  # onnx raises DecodeError and others
        raise ReportError(f"{file}: not a readable ONNX model ({exc}).") from exc
    return OnnxIndex.from_model(proto)


def _make_layer(record: dict[str, Any], info: dict[str, Any], onnx: OnnxIndex | None) -> LayerRecord:
    name = str(record["name"])
    parsed = parse_layer_name(name)
    kind = str(info.get("LayerType", ""))
    if not kind:  # without --exportLayerInfo, name the overhead kinds we can recognise
        kind = {"reformat": "Reformat", "copy": "Copy"}.get(parsed.kind, "Unknown")
    inputs, outputs = info.get("Inputs", []), info.get("Outputs", [])
    precision = parse_precision(_tensor_format(inputs[0])) if inputs and isinstance(inputs[0], dict) else "N/A"
    from_metadata = metadata_sources(str(info.get("Metadata", "")))
    if onnx is not None:
        nodes = onnx.link(parsed)
        nodes += [n for n in (onnx.resolve(m) for m in from_metadata) if n and n not in nodes]
    else:
        nodes = list(dict.fromkeys(parsed.sources + from_metadata))
    median = float(record.get("medianMs", record.get("averageMs", 0.0)))
    mean = float(record.get("averageMs", median))
    return LayerRecord(
        name=name,
        type=kind,
        aggregate=LayerTimes(median_ms=median, mean_ms=mean, min_ms=median, max_ms=median),
        onnx_nodes=nodes,
        input_dims=_dims(inputs),
        output_dims=_dims(outputs),
        precision=precision,
        overhead=parsed.overhead or kind in OVERHEAD_TYPES,
    )


def _timeline(layers: list[LayerRecord], h2d_ms: float, d2h_ms: float) -> list[TimelineEvent]:
    events: list[TimelineEvent] = []
    ends: dict[int, float] = {}
    if h2d_ms > 0:
        events.append(TimelineEvent(-1, "H2D input copies", 0, 0.0, h2d_ms, True))
        ends[0] = h2d_ms
    for pos, layer in enumerate(layers):
        start, duration = ends.get(layer.stream, 0.0), layer.times(0).median_ms
        events.append(TimelineEvent(pos, layer.name, layer.stream, start, duration, layer.overhead))
        ends[layer.stream] = start + duration
    if d2h_ms > 0:
        end = max(ends.values(), default=0.0)
        events.append(TimelineEvent(-1, "D2H output copies", 0, end, d2h_ms, True))
    return events


def _stem(path: Pathish) -> str:
    name = Path(path).name
    for suffix in (".json", ".profile", ".engine", ".plan", ".onnx"):
        name = name.removesuffix(suffix)
    return name


def import_trtexec(
    profile: Pathish,
    layers: Pathish | None = None,
    times: Pathish | None = None,
    model: Pathish | None = None,
    metadata: Sequence[Pathish] = (),
) -> Report:
    """Build a report from trtexec output files (see the module docstring)."""
    count, records = read_profile(profile)
    info = read_layer_info(layers) if layers is not None else {}
    passes = read_times(times) if times is not None else []
    meta = read_metadata(metadata)
    onnx = _load_index(model) if model is not None else None
    built = [_make_layer(r, info.get(str(r["name"]), {}), onnx) for r in records]
    passes_ms = [p["latencyMs"] for p in passes]
    median_pass = passes[layer_pass_index(passes_ms)] if passes else {}
    device_info = meta.get("device_information", {})
    device = str(device_info.get("Selected Device", "")) or "TensorRT device (not in the trtexec files)"
    build = meta.get("build_options", {})
    settings: dict[str, Any] = {
        "source": "trtexec",
        "files": {
            k: str(v)
            for k, v in (("profile", profile), ("layers", layers), ("times", times), ("model", model))
            if v is not None
        },
        "profiled_runs": count,
        "layer_times": "medianMs per layer (averageMs when absent); min_ms/max_ms equal it: trtexec "
        "writes one "
        "aggregate per layer",
        "timeline": "per-layer median times laid end to end per stream: trtexec profiles carry no start times",
        "median_ms": "median of --exportTimes latencyMs"
        if passes
        else "sum of layer times: no --exportTimes file was given",
    }
    if build:
        settings["build_options"] = build
    if meta.get("inference_options"):
        settings["inference_options"] = meta["inference_options"]
    run = RunInfo(
        model=Path(model).stem if model is not None else _stem(profile),
        model_path=str(model) if model is not None else "",
        backend="tensorrt",
        provider=device,
        device=device,
        optimization=str(build.get("builderOptimizationLevel", build.get("Optimization level", ""))),
        settings=settings,
    )
    used = {n for layer in built for n in layer.onnx_nodes}
    removed = [n for n in onnx.order if n not in used] if onnx is not None else []
    system: dict[str, Any] = {"gpu": device} if device_info else {}
    if device_info:
        system["device_information"] = device_info
    return build_report(
        run,
        passes_ms,
        built,
        timeline=_timeline(built, median_pass.get("h2dMs", 0.0), median_pass.get("d2hMs", 0.0)),
        pass_count=count,
        removed_nodes=removed,
        system=system,
    )
