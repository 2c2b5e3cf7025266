"""Divergence results as Model Explorer node data, both ways, so users carry them between the two tools.

Model Explorer's documented format (model_explorer/node_data_builder.py, `GraphNodeData`): an object with
`results` (node key → {"value": number, optional "bgColor"/"textColor"}) and an optional `gradient` (items
{"stop": 0..1, "bgColor": hex}, stops 0 and 1 present; 0 is the smallest value, 1 the largest); a `ModelNodeData`
file is an object of such objects by graph id. Keys are ONNX node names (how Model Explorer's ONNX adapter names
nodes). Written: one GraphNodeData of the run's metric, per node its worst output, with a green → red gradient
oriented so red is always "worse" (for cosine and SQNR, where lower is worse, values are written as they are and
the gradient runs red → green). Read: either form; every value must be a finite number, every key a string.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.formats.atomic_write import atomic_write_text

from .divergence import Divergence

GOOD, MID, BAD = "#1a9850", "#fee08b", "#d73027"  # ColorBrewer RdYlGn ends and middle: colour-blind aware


def to_node_data(divergence: Divergence) -> dict[str, Any]:
    """The run as a Model Explorer GraphNodeData object (JSON-ready)."""
    metric = divergence.metric
    results: dict[str, dict[str, float | str]] = {}
    for name, row in divergence.by_node().items():
        value = row.metrics.value(metric)
        if math.isfinite(value):
            results[name] = {"value": value}
        else:  # inf SQNR (identical) or a failed pair: written as the extreme it stands for, coloured explicitly
            results[name] = {"value": 1e9 if value > 0 else -1e9, "bgColor": BAD if row.over else GOOD}
    low_is_bad = metric in ("cosine", "sqnr")
    stops = [BAD, MID, GOOD] if low_is_bad else [GOOD, MID, BAD]
    gradient = [{"stop": s, "bgColor": c} for s, c in zip((0, 0.5, 1), stops, strict=True)]
    return {"results": results, "gradient": gradient}


def save_node_data(divergence: Divergence, path: str | os.PathLike[str]) -> pathlib.Path:
    return atomic_write_text(path, json.dumps(to_node_data(divergence), indent=2, ensure_ascii=False))


def read_node_data(path: str | os.PathLike[str]) -> dict[str, float]:
    """Node key → value from a Model Explorer node-data file (GraphNodeData, or ModelNodeData of one graph)."""
    what = f"node data {os.fspath(path)}"
    from dld_jupyter.report_format.errors import ReportError
    from dld_jupyter.report_format.json_input import parse_json

    try:  # bounded: 100,000 nested brackets or 1e400 were a RecursionError or OverflowError traceback
        data = parse_json(pathlib.Path(path).read_text(encoding="utf-8"), os.fspath(path), "node data")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(f"{what}: not a readable JSON file ({error})") from error
    except ReportError as error:
        raise SpecError(f"{what}: {error}") from error
    if isinstance(data, dict) and "results" not in data and len(data) == 1:
        data = next(iter(data.values()))  # ModelNodeData: {graph id: GraphNodeData}
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise SpecError(f"{what}: has no `results` object; expected Model Explorer's GraphNodeData "
                        "({\"results\": {node: {\"value\": number}}}) or a ModelNodeData of one graph")
    values = {}
    for key, result in data["results"].items():
        value = result.get("value") if isinstance(result, dict) else None
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise SpecError(f"{what}: node {key!r} has no finite numeric `value`")
        values[str(key)] = float(value)
    return values
