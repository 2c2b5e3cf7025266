"""A TensorRT engine's layer information as a small read-only graph (seed 000 "Visualizing a TensorRT Engine").

Reads the JSON that `IEngineInspector.get_engine_information(LayerInformationFormat.JSON)` returns and
`trtexec --profilingVerbosity=detailed --exportLayerInfo=FILE` writes (the designer's `.trt.json`): layers become
nodes (type, precision, tactic, the ONNX nodes their fused names carry), tensors become links from the layer that
writes them to each layer that reads them, and the engine's bindings are its inputs and outputs. Plain data, so
a canvas can draw it and the TensorRT backend and `dld engine show` read engines the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.layer_info import check_layer_info, read_layer_info
from dld_jupyter.report_format.trt_names import metadata_sources, parse_layer_name

OVERHEAD_TYPES = frozenset({"Reformat", "NoOp", "Copy", "Identity"})  # Identity: TensorRT's copy/cast layer
_PRECISION = re.compile(
    r"\b(FP32|FP16|BF16|FP8|FP4|INT64|INT32|INT8|INT4|UINT8|BOOL|Float|Half|Int8|Int32)\b", re.IGNORECASE
)
_PRECISION_ALIASES = {"FLOAT": "FP32", "HALF": "FP16"}
_LAYER_KEYS = {"Name", "LayerType", "Inputs", "Outputs", "TacticName", "TacticValue", "Metadata"}


_PROFILE_HINT = (
    " A list is what trtexec --exportProfile writes (layer timings): open it in the report viewer (dld.report, or"
    " Open With DL Designer Report Viewer)."
)


class EngineGraphError(ReportError, ValueError):
    """The file is not engine layer information: what was found, and which file to pass instead (the report
    layer's error, so `dld engine show` exits 2 and the engine tab shows it, as for the trtexec import)."""


def parse_precision(format_datatype: str) -> str:
    """ "Channel major FP16 format where channel % 8 == 0" -> "FP16"; "Row major linear FP32" -> "FP32"."""
    match = _PRECISION.search(format_datatype)
    if not match:
        return "N/A"
    word = match.group(1).upper()
    return _PRECISION_ALIASES.get(word, word)


@dataclass(frozen=True)
class EngineTensor:
    name: str
    dims: list[int | str]
    format: str  # TensorRT's "Format/Datatype" text
    precision: str  # parsed from it: "FP16", "INT8", "N/A"


@dataclass(frozen=True)
class EngineLayer:
    index: int  # execution order
    name: str
    type: str  # LayerType ("CaskConvolution", "Reformat", ...)
    precision: str  # precision of the first input ("N/A" without inputs), as the report's Precision column
    tactic: str  # TacticName, else TacticValue, else ""
    inputs: list[str]  # tensor names
    outputs: list[str]
    onnx_nodes: list[str]  # ONNX names the fused layer name (or TensorRT 10 Metadata) carries
    kind: str  # "compute" | "reformat" | "copy"
    overhead: bool  # reformat, copy, NoOp
    parameters: dict[str, Any] = field(default_factory=dict)  # every other field (Kernel, Stride, Weights, ...)


@dataclass(frozen=True)
class EngineLink:
    tensor: str
    source: int | None  # producing layer index; None: an engine input
    target: int | None  # consuming layer index; None: an engine output


@dataclass
class EngineGraph:
    layers: list[EngineLayer]
    tensors: dict[str, EngineTensor]
    links: list[EngineLink]
    inputs: list[str]
    outputs: list[str]
    source: str = ""  # the file it was read from

    def layer_named(self, name: str) -> EngineLayer | None:
        return next((layer for layer in self.layers if layer.name == name), None)


def _tensor(item: dict[str, Any]) -> EngineTensor | None:
    """The tensor of a record checked by `layer_info` (one without a name is not drawn)."""
    if "Name" not in item:
        return None
    text = item.get("Format/Datatype", item.get("Datatype", item.get("Format", "")))
    return EngineTensor(item["Name"], list(item.get("Dimensions", [])), text, parse_precision(text))


def _tactic(item: dict[str, Any]) -> str:
    return str(item.get("TacticName") or item.get("TacticValue") or "")


def _layer(index: int, item: dict[str, Any], tensors: dict[str, EngineTensor]) -> EngineLayer:
    ins = [t for t in (_tensor(x) for x in item.get("Inputs", [])) if t is not None]
    outs = [t for t in (_tensor(x) for x in item.get("Outputs", [])) if t is not None]
    for tensor in (*ins, *outs):
        tensors.setdefault(tensor.name, tensor)
    parsed = parse_layer_name(item["Name"])
    kind = item.get("LayerType", "") or {"reformat": "Reformat", "copy": "Copy"}.get(parsed.kind, "Unknown")
    nodes = list(dict.fromkeys(parsed.sources + metadata_sources(item.get("Metadata", ""))))
    return EngineLayer(
        index=index,
        name=item["Name"],
        type=kind,
        precision=ins[0].precision if ins else "N/A",
        tactic=_tactic(item),
        inputs=[t.name for t in ins],
        outputs=[t.name for t in outs],
        onnx_nodes=nodes,
        kind=parsed.kind,
        overhead=parsed.overhead or kind in OVERHEAD_TYPES,
        parameters={k: v for k, v in item.items() if k not in _LAYER_KEYS},
    )


def _links(layers: Sequence[EngineLayer], bindings: Sequence[str]) -> tuple[list[EngineLink], list[str], list[str]]:
    producer = {name: layer.index for layer in layers for name in layer.outputs}
    consumed = {name for layer in layers for name in layer.inputs}
    links: list[EngineLink] = []
    inputs: list[str] = []
    for layer in layers:
        for name in layer.inputs:
            source = producer.get(name)
            if source is None and name not in inputs:
                inputs.append(name)
            links.append(EngineLink(name, source, layer.index))
    outputs = [name for name in bindings if name in producer]
    outputs += [name for name in producer if name not in consumed and name not in outputs]
    links += [EngineLink(name, producer[name], None) for name in outputs]
    inputs += [name for name in bindings if name not in producer and name not in inputs]
    return links, inputs, outputs


def engine_graph_from_json(data: Any, source: str = "") -> EngineGraph:
    """The graph of decoded layer information ({"Layers": [...], "Bindings": [...]}), checked by `layer_info`."""
    try:
        records, bindings = check_layer_info(data, source or "layer information", _PROFILE_HINT)
    except ReportError as error:
        raise EngineGraphError(str(error)) from error
    return _graph(records, bindings, source)


def _graph(records: list[dict[str, Any]], bindings: list[str], source: str) -> EngineGraph:
    tensors: dict[str, EngineTensor] = {}
    layers = [_layer(i, item, tensors) for i, item in enumerate(records)]
    links, inputs, outputs = _links(layers, bindings)
    return EngineGraph(layers, tensors, links, inputs, outputs, source)


def load_engine_graph(path: str | Path) -> EngineGraph:
    """Read a `.trt.json` / `--exportLayerInfo` file through the report layer's bounded JSON input and the same
    checks as the trtexec import; EngineGraphError says what is wrong with it."""
    try:
        records, bindings = read_layer_info(path, _PROFILE_HINT)
    except ReportError as error:
        raise EngineGraphError(str(error)) from error
    return _graph(records, bindings, str(Path(path)))
