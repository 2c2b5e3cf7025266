"""Results as Model Explorer node data, both ways, so users carry them between the two tools.

Model Explorer's documented format (model_explorer/node_data_builder.py, `GraphNodeData`): an object with
`results` (node key → {"value": number, optional "bgColor"/"textColor"}) and an optional `gradient` (items
{"stop": 0..1, "bgColor": hex}, stops 0 and 1 present; 0 is the smallest value, 1 the largest); a `ModelNodeData`
file is an object of such objects by graph id. Keys are the ids Model Explorer's ONNX adapter gives the nodes
(document/layout/explorer_ids.py: NameFixPass's names, so an unnamed node is `node_3` there and here). Written: a
divergence (per node its worst output, green → red oriented so red is always "worse": for cosine and SQNR, where
lower is worse, the gradient runs red → green), a structural diff (diff_node_data) and a report's heat
(reports/heat_node_data.py), all through `graph_node_data`. Read: either form; every value must be a finite number,
every key a string, a colour a `#rgb`/`#rrggbb` text.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import onnx_ir as ir

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.document.layout.explorer_ids import explorer_node_ids
from dld_jupyter.formats.atomic_write import atomic_write_text

from .divergence import Divergence, NodeDivergence, worse
from .structural_diff import ModelDiff

GOOD, MID, BAD = "#1a9850", "#fee08b", "#d73027"  # ColorBrewer RdYlGn ends and middle: colour-blind aware
ADDED, CHANGED, SAME = "#2c7bb6", "#fdae61", "#e0e0e0"  # the canvas diff overlay's colours (overlays/marks.ts)
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})\Z")


def gradient(low_is_bad: bool = False) -> list[dict[str, Any]]:
    stops = [BAD, MID, GOOD] if low_is_bad else [GOOD, MID, BAD]
    return [{"stop": s, "bgColor": c} for s, c in zip((0, 0.5, 1), stops, strict=True)]


def graph_node_data(values: Mapping[str, float], colours: Mapping[str, str] | None = None,
                    low_is_bad: bool = False, with_gradient: bool = True) -> dict[str, Any]:
    """A GraphNodeData object (JSON-ready) of node id → value, explicit background colours where given."""
    results: dict[str, dict[str, float | str]] = {}
    for key, value in values.items():
        results[key] = {"value": value}
        if colours and key in colours:
            results[key]["bgColor"] = colours[key]
    return {"results": results, "gradient": gradient(low_is_bad)} if with_gradient else {"results": results}


def to_node_data(divergence: Divergence, candidate_ids: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The run as a GraphNodeData object, keyed by the reference nodes' Model Explorer ids; by the candidate's
    when `candidate_ids` (its node labels -> Model Explorer ids) is given, for a canvas showing the candidate."""
    metric = divergence.metric
    worst: dict[str, NodeDivergence] = {}
    for row in divergence.rows:
        key = (row.explorer_id or row.node) if candidate_ids is None else candidate_ids.get(row.candidate_node, "")
        if not key:
            continue
        if key not in worst or worse(row, worst[key], metric):
            worst[key] = row
    values: dict[str, float] = {}
    colours: dict[str, str] = {}
    for key, row in worst.items():
        value = row.metrics.value(metric)
        values[key] = value if math.isfinite(value) else (1e9 if value > 0 else -1e9)
        if not math.isfinite(value):  # inf SQNR (identical) or a failed pair: the extreme it stands for, coloured
            colours[key] = BAD if row.over else GOOD
    return graph_node_data(values, colours, low_is_bad=metric in ("cosine", "sqnr"))


def save_node_data(divergence: Divergence, path: str | os.PathLike[str]) -> pathlib.Path:
    return write_node_data(to_node_data(divergence), path)


def diff_node_data(diff: ModelDiff, graph_b: ir.Graph) -> dict[str, Any]:
    """Every node of the diff's newer model (`graph_b`): 2 added (blue), 1 changed (orange), 0 the same (grey)."""
    ids = explorer_node_ids(graph_b)
    marks = {ids[ref.index]: "added" for ref in diff.graph.added}
    marks.update((ids[changed.b.index], "changed") for changed in diff.graph.changed)
    return mark_node_data(ids, marks)


def mark_node_data(ids: Sequence[str], marks: Mapping[str, str]) -> dict[str, Any]:
    """Every node id of `ids`: 2 "added", 1 "changed" (by `marks`), 0 the same, each with the canvas diff's colour."""
    values = {key: {"added": 2.0, "changed": 1.0}.get(marks.get(key, ""), 0.0) for key in ids}
    colours = {key: {2.0: ADDED, 1.0: CHANGED}.get(value, SAME) for key, value in values.items()}
    return graph_node_data(values, colours, with_gradient=False)


def write_node_data(data: Mapping[str, Any], path: str | os.PathLike[str]) -> pathlib.Path:
    return atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False))


@dataclass
class NodeData:
    """A node-data file as read: values and explicit colours by node key, and its gradient (stop, colour)."""

    values: dict[str, float]
    colours: dict[str, str] = field(default_factory=dict)
    gradient: list[tuple[float, str]] = field(default_factory=list)


def read_node_data(path: str | os.PathLike[str]) -> dict[str, float]:
    """Node key → value from a Model Explorer node-data file (GraphNodeData, or ModelNodeData of one graph)."""
    return read_node_data_file(path).values


def read_node_data_file(path: str | os.PathLike[str]) -> NodeData:
    """The whole node-data file: values, colours and gradient (SpecError saying what is wrong with it)."""
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
    found = NodeData({})
    for key, result in data["results"].items():
        value = result.get("value") if isinstance(result, dict) else None
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise SpecError(f"{what}: node {key!r} has no finite numeric `value`")
        found.values[str(key)] = float(value)
        colour = result.get("bgColor")
        if colour is not None:
            found.colours[str(key)] = _colour(colour, f"{what}: node {key!r} bgColor")
    found.gradient = _gradient(data.get("gradient"), what)
    return found


def _colour(value: object, what: str) -> str:
    if not isinstance(value, str) or not _COLOUR.match(value):
        raise SpecError(f"{what} {value!r} is not a colour: give #rgb or #rrggbb")
    return value


def _gradient(items: object, what: str) -> list[tuple[float, str]]:
    if items is None:
        return []
    if not isinstance(items, Sequence) or isinstance(items, str):
        raise SpecError(f"{what}: `gradient` is not a list of {{\"stop\": 0..1, \"bgColor\": colour}}")
    stops = []
    for item in items:
        stop = item.get("stop") if isinstance(item, dict) else None
        if not isinstance(stop, int | float) or isinstance(stop, bool) or not 0 <= stop <= 1:
            raise SpecError(f"{what}: a gradient stop {stop!r} is not a number from 0 to 1")
        stops.append((float(stop), _colour(item.get("bgColor"), f"{what}: the gradient stop {stop} bgColor")))
    return sorted(stops)
