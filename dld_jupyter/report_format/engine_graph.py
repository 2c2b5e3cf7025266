"""A TensorRT engine's layer information as a small read-only graph (seed 000 "Visualizing a TensorRT Engine").

Reads the JSON that `IEngineInspector.get_engine_information(LayerInformationFormat.JSON)` returns and
`trtexec --profilingVerbosity=detailed --exportLayerInfo=FILE` writes (the designer's `.trt.json`): layers become
nodes (type, precision, tactic, the ONNX nodes their fused names carry), tensors become links from the layer that
writes them to each layer that reads them, and the engine's bindings are its inputs and outputs. Plain data, so
a canvas can draw it and the TensorRT backend and `dld engine show` read engines the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


class EngineGraphError(ValueError):
    """The file is not engine layer information: what was found, and which file to pass instead."""


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


def _tensor(item: Any) -> EngineTensor | None:
    if not isinstance(item, dict) or not isinstance(item.get("Name"), str):
        return None
    text = str(item.get("Format/Datatype", item.get("Datatype", item.get("Format", ""))))
    dims = [d if isinstance(d, int) else str(d) for d in item.get("Dimensions", [])]
    return EngineTensor(item["Name"], dims, text, parse_precision(text))


def _tactic(item: dict[str, Any]) -> str:
    return str(item.get("TacticName") or item.get("TacticValue") or "")


def _layer(index: int, item: Any, tensors: dict[str, EngineTensor]) -> EngineLayer:
    if isinstance(item, str):  # --profilingVerbosity=layer_names_only
        item = {"Name": item}
    if not isinstance(item, dict) or not isinstance(item.get("Name"), str):
        raise EngineGraphError(f'layer {index} has no "Name"')
    ins = [t for t in (_tensor(x) for x in item.get("Inputs", [])) if t is not None]
    outs = [t for t in (_tensor(x) for x in item.get("Outputs", [])) if t is not None]
    for tensor in (*ins, *outs):
        tensors.setdefault(tensor.name, tensor)
    parsed = parse_layer_name(item["Name"])
    kind = str(item.get("LayerType", "")) or {"reformat": "Reformat", "copy": "Copy"}.get(parsed.kind, "Unknown")
    nodes = list(dict.fromkeys(parsed.sources + metadata_sources(str(item.get("Metadata", "")))))
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
    """The graph of decoded layer information ({"Layers": [...], "Bindings": [...]})."""
    layers_data = data.get("Layers") if isinstance(data, dict) else None
    if not isinstance(layers_data, list):
        found = type(data).__name__ if not isinstance(data, dict) else f"keys {sorted(data)[:6]}"
        raise EngineGraphError(
            f'{source or "layer information"}: expected an object with a "Layers" list (found {found}). Pass the '
            "file of trtexec --exportLayerInfo or a .trt.json from the engine inspector, built with detailed "
            "profiling verbosity." + (_PROFILE_HINT if isinstance(data, list) else "")
        )
    tensors: dict[str, EngineTensor] = {}
    layers = [_layer(i, item, tensors) for i, item in enumerate(layers_data)]
    bindings = [str(b) for b in data.get("Bindings", []) if isinstance(b, str)]
    links, inputs, outputs = _links(layers, bindings)
    return EngineGraph(layers, tensors, links, inputs, outputs, source)


def load_engine_graph(path: str | Path) -> EngineGraph:
    """Read a `.trt.json` / `--exportLayerInfo` file; EngineGraphError says what is wrong with it."""
    file = Path(path)
    try:
        data = json.loads(file.read_text("utf-8"))
    except OSError as error:
        raise EngineGraphError(f"{file}: cannot read it ({error.strerror or error}).") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise EngineGraphError(f"{file}: not JSON ({error}); pass the engine's layer information file.") from error
    return engine_graph_from_json(data, str(file))
