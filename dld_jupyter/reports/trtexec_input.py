"""Reading trtexec's JSON outputs with every field the import uses checked first.

Why a module of its own: the import used to trust the files, so a string `averageMs` or a missing `count` value
surfaced as a raw ValueError/TypeError/KeyError from deep inside, and a `true` count or a string `medianMs`
such as "1.5" was silently accepted. Here each reader checks the records as trtexec writes them and raises a
`ReportError` naming the file, the record and the field, with what it should hold; what passes is safe for
`reports.trtexec` to use without further checks. Files are read through `report_format.json_input` (bounded
nesting and numbers, no NaN/Infinity).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.report_format import layer_info
from dld_jupyter.report_format.errors import ReportError
from dld_jupyter.report_format.json_input import read_json
from dld_jupyter.report_format.layer_info import shown

Pathish = str | os.PathLike[str]
PROFILE_TIMES = ("timeMs", "averageMs", "medianMs")  # milliseconds, never negative
TIMES_NOT_NEGATIVE = ("latencyMs", "h2dMs", "d2hMs", "computeMs")


def _read(path: Pathish, what: str, flag: str) -> Any:
    return read_json(path, what, f"the output of trtexec {flag}")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _time(path: Pathish, where: str, record: dict[str, Any], field: str) -> None:
    """A time field, when present, is a number of milliseconds, at least 0."""
    if field not in record:
        return
    value = record[field]
    if not _is_number(value):
        raise ReportError(
            f'{path}: {where} has no numeric "{field}": found {shown(value)}. '
            "Times are numbers of milliseconds, as trtexec writes them."
        )
    if value < 0:
        raise ReportError(f'{path}: {where} has "{field}" {value}: a time cannot be negative.')


def _count(path: Pathish, pos: int, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        what = "must be a whole number of profiled runs, at least 1"
        raise ReportError(f'{path}: record {pos} ("count") {what}; found {shown(value)}.')
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
            raise ReportError(f'{path}: record {pos} has a layer "name" that is not a string: {shown(item["name"])}.')
        where = f"layer {item['name']!r} (record {pos})"
        if "averageMs" not in item and "medianMs" not in item:
            raise ReportError(f'{path}: {where} has no numeric "averageMs" (nor "medianMs").')
        for field in PROFILE_TIMES:
            _time(path, where, item, field)
        if "percentage" in item and not _is_number(item["percentage"]):
            raise ReportError(f'{path}: {where} has a "percentage" that is not a number: {shown(item["percentage"])}.')
        records.append(item)
    if not records:
        raise ReportError(f"{path}: the profile lists no layers (was the engine run with --dumpProfile?).")
    return count, records


def read_layer_info(path: Pathish) -> dict[str, dict[str, Any]]:
    """Layer name -> record of an `--exportLayerInfo` file (names only when built without details), checked by
    `report_format.layer_info` as the engine graph's reader checks it."""
    layers, _bindings = layer_info.read_layer_info(path)
    return {item["Name"]: item for item in layers}


def read_times(path: Pathish) -> list[dict[str, float]]:
    """Per-inference records of an `--exportTimes` file: every value a number, durations at least 0."""
    data = _read(path, "timing", "--exportTimes")
    if not isinstance(data, list) or not data or not all(isinstance(d, dict) and "latencyMs" in d for d in data):
        raise ReportError(f'{path}: expected a list of records with "latencyMs" as trtexec --exportTimes writes.')
    for pos, record in enumerate(data):
        for field, value in record.items():
            if not _is_number(value):
                raise ReportError(f'{path}: record {pos} has "{field}" {shown(value)}; expected a number of ms.')
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
                raise ReportError(f'{Path(path)}: "{key}" is {shown(data[key])}; TREx writes an object there.')
        merged.update(data)
    return merged
