"""Reading trtexec's JSON outputs with every field the import uses checked first.

Why a module of its own: the import used to trust the files, so a string `averageMs` or a missing `count` value
surfaced as a raw ValueError/TypeError/KeyError from deep inside, and a `true` count or a string `medianMs`
such as "1.5" was silently accepted. Here each reader checks the records as trtexec writes them and raises a
`ReportError` naming the file, the record and the field, with what it should hold; what passes is safe for
`reports.trtexec` to use without further checks. Files are read through `report_format.json_input` (bounded
nesting and numbers, no NaN/Infinity).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.json_input import read_json
from dld_jupyter.report_format.validation import json_type

Pathish = str | os.PathLike[str]
PROFILE_TIMES = ("timeMs", "averageMs", "medianMs")  # milliseconds, never negative
TENSOR_TEXT = ("Name", "Format/Datatype", "Datatype", "Format")
LAYER_TEXT = ("LayerType", "Metadata")
TIMES_NOT_NEGATIVE = ("latencyMs", "h2dMs", "d2hMs", "computeMs")


def _read(path: Pathish, what: str, flag: str) -> Any:
    return read_json(path, what, f"the output of trtexec {flag}")


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return f"{json_type(value)} {text if len(text) <= 40 else text[:37] + '...'}"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _time(path: Pathish, where: str, record: dict[str, Any], field: str) -> None:
    """A time field, when present, is a number of milliseconds, at least 0."""
    if field not in record:
        return
    value = record[field]
    if not _is_number(value):
        raise ReportError(
            f'{path}: {where} has no numeric "{field}": found {_shown(value)}. '
            "Times are numbers of milliseconds, as trtexec writes them."
        )
    if value < 0:
        raise ReportError(f'{path}: {where} has "{field}" {value}: a time cannot be negative.')


def _count(path: Pathish, pos: int, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ReportError(
            f'{path}: record {pos} ("count") must be a whole number of profiled runs, at least 1; '
            f"found {_shown(value)}."
        )
    return value


def read_profile(path: Pathish) -> tuple[int, list[dict[str, Any]]]:
    """(profiled runs, layer records) of a `--exportProfile` file, with clear errors for anything else."""
    data = _read(path, "profile", "--exportProfile")
    if isinstance(data, list) and data and all(isinstance(d, list) for d in data):
        data = data[0]  # one list per optimization profile: the first is reported
    if not isinstance(data, list):
        raise ReportError(
            f"{path}: a trtexec profile is a JSON list of layer records; found a JSON "
            f"{type(data).__name__}. Did you pass the --exportLayerInfo or --exportTimes file?"
        )
    count, records = 1, []
    for pos, item in enumerate(data):
        if isinstance(item, dict) and "count" in item and "name" not in item:
            count = _count(path, pos, item["count"])
            continue
        if not isinstance(item, dict) or "name" not in item:
            raise ReportError(
                f'{path}: record {pos} has no layer "name"; expected '
                '{"name", "timeMs", "averageMs", "percentage"} as trtexec --exportProfile writes.'
            )
        if not isinstance(item["name"], str):
            raise ReportError(f'{path}: record {pos} has a layer "name" that is not a string: {_shown(item["name"])}.')
        where = f"layer {item['name']!r} (record {pos})"
        if "averageMs" not in item and "medianMs" not in item:
            raise ReportError(f'{path}: {where} has no numeric "averageMs" (nor "medianMs").')
        for field in PROFILE_TIMES:
            _time(path, where, item, field)
        if "percentage" in item and not _is_number(item["percentage"]):
            raise ReportError(f'{path}: {where} has a "percentage" that is not a number: {_shown(item["percentage"])}.')
        records.append(item)
    if not records:
        raise ReportError(f"{path}: the profile lists no layers (was the engine run with --dumpProfile?).")
    return count, records


def _check_tensors(path: Pathish, where: str, layer: dict[str, Any], key: str) -> None:
    tensors = layer.get(key, [])
    if not isinstance(tensors, list):
        raise ReportError(f'{path}: {where} has "{key}" {_shown(tensors)}; expected a list of tensor objects.')
    for pos, tensor in enumerate(tensors):
        at = f'{where} "{key}"[{pos}]'
        if not isinstance(tensor, dict):
            raise ReportError(f"{path}: {at} is {_shown(tensor)}; expected an object with Name and Dimensions.")
        dims = tensor.get("Dimensions", [])
        if not isinstance(dims, list) or not all(isinstance(d, int | str) and not isinstance(d, bool) for d in dims):
            raise ReportError(f'{path}: {at} has "Dimensions" {_shown(dims)}; expected a list of sizes.')
        for field in TENSOR_TEXT:
            if field in tensor and not isinstance(tensor[field], str):
                raise ReportError(f'{path}: {at} has "{field}" {_shown(tensor[field])}; expected a string.')


def read_layer_info(path: Pathish) -> dict[str, dict[str, Any]]:
    """Layer name -> record of an `--exportLayerInfo` file (names only when built without details)."""
    data = _read(path, "layer information", "--exportLayerInfo")
    layers = data.get("Layers") if isinstance(data, dict) else None
    if not isinstance(layers, list):
        raise ReportError(f'{path}: expected an object with a "Layers" list as trtexec --exportLayerInfo writes.')
    info: dict[str, dict[str, Any]] = {}
    for pos, item in enumerate(layers):
        if isinstance(item, str):  # --profilingVerbosity=layer_names_only
            info[item] = {"Name": item}
            continue
        if not isinstance(item, dict) or not isinstance(item.get("Name"), str):
            raise ReportError(
                f'{path}: "Layers"[{pos}] is {_shown(item)}; expected a layer name or an object with a string '
                '"Name" as trtexec --exportLayerInfo writes.'
            )
        where = f'layer {item["Name"]!r} ("Layers"[{pos}])'
        for field in LAYER_TEXT:
            if field in item and not isinstance(item[field], str):
                raise ReportError(f'{path}: {where} has "{field}" {_shown(item[field])}; expected a string.')
        _check_tensors(path, where, item, "Inputs")
        _check_tensors(path, where, item, "Outputs")
        info[item["Name"]] = item
    return info


def read_times(path: Pathish) -> list[dict[str, float]]:
    """Per-inference records of an `--exportTimes` file: every value a number, durations at least 0."""
    data = _read(path, "timing", "--exportTimes")
    if not isinstance(data, list) or not data or not all(isinstance(d, dict) and "latencyMs" in d for d in data):
        raise ReportError(f'{path}: expected a list of records with "latencyMs" as trtexec --exportTimes writes.')
    for pos, record in enumerate(data):
        for field, value in record.items():
            if not _is_number(value):
                raise ReportError(f'{path}: record {pos} has "{field}" {_shown(value)}; expected a number of ms.')
        for field in TIMES_NOT_NEGATIVE:
            _time(path, f"record {pos}", record, field)
    return [{k: float(v) for k, v in d.items()} for d in data]


def read_metadata(paths: Sequence[Pathish]) -> dict[str, Any]:
    """Merge TREx metadata files (device_information, build_options, inference_options, ...)."""
    merged: dict[str, Any] = {}
    for path in paths:
        data = _read(path, "TREx metadata", "TREx's process_engine.py")
        if not isinstance(data, dict):
            raise ReportError(f"{path}: TREx metadata is a JSON object.")
        for key in ("device_information", "build_options", "inference_options"):
            if key in data and not isinstance(data[key], dict):
                raise ReportError(f'{Path(path)}: "{key}" is {_shown(data[key])}; TREx writes an object there.')
        merged.update(data)
    return merged
