"""TensorRT layer information (`trtexec --exportLayerInfo`, the engine inspector's `.trt.json`) read and checked once,
for every reader: the trtexec import (`reports.trtexec_input`) and the engine graph (`engine_graph`, `dld engine
show`, the engine tab, the TensorRT backend).

Why a module of its own: the engine graph used to decode the file with a bare `json.loads` and trust its fields,
so `"Inputs": 5`, `"Dimensions": null` or `"Bindings": 7` ended in a TypeError traceback, 5,000 nested brackets in a
RecursionError, and a number where a name belongs was silently turned into text, while the trtexec import refused
all of these clearly. Now both read through `json_input` (bounded nesting and numbers, no NaN/Infinity) and the
checks below, which raise a `ReportError` naming the file, the layer and the field, with what it should hold:
- the file is an object with a `"Layers"` list, and `"Bindings"` (when present) a list of tensor names;
- a layer is a name (built with `--profilingVerbosity=layer_names_only`) or an object with a string `"Name"`;
  its `LayerType`, `Metadata` and `TacticName` are strings, `TacticValue` a string or an integer;
- `Inputs` / `Outputs` are lists of tensor objects whose `Name`, `Format/Datatype`, `Datatype`, `Format` are
  strings and whose `Dimensions` is a list of sizes (integers) or symbolic names (strings).
"""

from __future__ import annotations

import json
import os
from typing import Any

from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.json_input import read_json
from dld_jupyter.report_format.validation import json_type

Pathish = str | os.PathLike[str]
WHAT = "layer information"
TENSOR_TEXT = ("Name", "Format/Datatype", "Datatype", "Format")
LAYER_TEXT = ("LayerType", "Metadata", "TacticName")
FROM = "trtexec --profilingVerbosity=detailed --exportLayerInfo, or the engine inspector's .trt.json"


def shown(value: object) -> str:
    """A value as it appears in the file, typed and shortened: `integer 5`, `null`, `string "x"`."""
    text = json.dumps(value, ensure_ascii=False)
    return "null" if value is None else f"{json_type(value)} {text if len(text) <= 40 else text[:37] + '...'}"


def _check_tensors(source: str, where: str, layer: dict[str, Any], key: str) -> None:
    tensors = layer.get(key, [])
    if not isinstance(tensors, list):
        raise ReportError(f'{source}: {where} has "{key}" {shown(tensors)}; expected a list of tensor objects.')
    for pos, tensor in enumerate(tensors):
        at = f'{where} "{key}"[{pos}]'
        if not isinstance(tensor, dict):
            raise ReportError(f"{source}: {at} is {shown(tensor)}; expected an object with Name and Dimensions.")
        dims = tensor.get("Dimensions", [])
        if not isinstance(dims, list) or not all(isinstance(d, int | str) and not isinstance(d, bool) for d in dims):
            raise ReportError(
                f'{source}: {at} has "Dimensions" {shown(dims)}; expected a list of sizes (integers) or symbolic '
                "names (strings)."
            )
        for field in TENSOR_TEXT:
            if field in tensor and not isinstance(tensor[field], str):
                raise ReportError(f'{source}: {at} has "{field}" {shown(tensor[field])}; expected a string.')


def _check_layer(source: str, pos: int, item: object) -> dict[str, Any]:
    if isinstance(item, str):  # --profilingVerbosity=layer_names_only
        return {"Name": item}
    if not isinstance(item, dict) or not isinstance(item.get("Name"), str):
        raise ReportError(
            f'{source}: "Layers"[{pos}] is {shown(item)}; expected a layer name or an object with a string '
            f'"Name" as {FROM} writes.'
        )
    where = f'layer {item["Name"]!r} ("Layers"[{pos}])'
    for field in LAYER_TEXT:
        if field in item and not isinstance(item[field], str):
            raise ReportError(f'{source}: {where} has "{field}" {shown(item[field])}; expected a string.')
    tactic = item.get("TacticValue")
    if tactic is not None and (isinstance(tactic, bool) or not isinstance(tactic, str | int)):
        raise ReportError(f'{source}: {where} has "TacticValue" {shown(tactic)}; expected a string or an integer.')
    _check_tensors(source, where, item, "Inputs")
    _check_tensors(source, where, item, "Outputs")
    return item


def check_layer_info(data: object, source: str, list_hint: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """(layer records, binding names) of decoded layer information; ReportError naming the field otherwise.
    `list_hint` is added when the file holds a list instead (what such a list is, and where to open it)."""
    layers = data.get("Layers") if isinstance(data, dict) else None
    if not isinstance(layers, list):
        found = f"keys {sorted(data)[:6]}" if isinstance(data, dict) else f"a JSON {json_type(data)}"
        hint = list_hint if isinstance(data, list) else ""
        raise ReportError(f'{source}: expected an object with a "Layers" list (found {found}) as {FROM} writes.{hint}')
    assert isinstance(data, dict)
    bindings = data.get("Bindings", [])
    if not isinstance(bindings, list) or not all(isinstance(b, str) for b in bindings):
        raise ReportError(f'{source}: "Bindings" is {shown(bindings)}; expected a list of tensor names.')
    return [_check_layer(source, pos, item) for pos, item in enumerate(layers)], bindings


def read_layer_info(path: Pathish, list_hint: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """Read and check the layer information file at `path` (see the module docstring)."""
    data = read_json(path, WHAT, "the output of trtexec --exportLayerInfo or dld export-engine --metadata")
    return check_layer_info(data, str(path), list_hint)
