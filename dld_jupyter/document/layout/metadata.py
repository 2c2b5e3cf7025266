"""Canvas positions kept in the model's ``metadata_props`` (key ``dld.positions``) so they travel with the file.

The value is JSON ``{"version": 1, "nodes": {key: [x, y]}}`` where a key is the node's name when that name is
unique and non-empty, else ``#<index in graph order>``; I/O nodes use ``i:<value name>`` / ``o:<value name>``.
Every key we own starts with ``dld`` (round-trip comparisons ignore them).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping

import onnx_ir as ir

from dld_jupyter.document.files.io import GENERATED_NAMES_KEY
from dld_jupyter.document.model.endpoints import has_input_node, input_node_id, output_node_id
from dld_jupyter.document.model.ids import IdMap

PREFIX = "dld"
POSITIONS_KEY = "dld.positions"


def node_keys(graph: ir.Graph, ids: IdMap) -> dict[str, str]:
    """Node id -> persistent key for every node of the graph (I/O nodes included)."""
    counts = Counter(node.name for node in graph if node.name)
    keys: dict[str, str] = {}
    for index, node in enumerate(graph):
        name = node.name
        keys[ids.node_id(node)] = name if name and counts[name] == 1 else f"#{index}"
    for value in graph.inputs:
        if has_input_node(value) and value.name:
            keys[input_node_id(ids, value)] = f"i:{value.name}"
    for value in graph.outputs:
        if value.name:
            keys[output_node_id(ids, value)] = f"o:{value.name}"
    return keys


def encode_positions(graph: ir.Graph, ids: IdMap, positions: Mapping[str, tuple[float, float]]) -> str | None:
    """The ``dld.positions`` value for the nodes that have a position, or None when none has."""
    if not positions:
        return None
    nodes = {
        key: [round(positions[nid][0], 2), round(positions[nid][1], 2)]
        for nid, key in node_keys(graph, ids).items()
        if nid in positions
    }
    return json.dumps({"version": 1, "nodes": nodes}, separators=(",", ":")) if nodes else None


def decode_positions(model: ir.Model, ids: IdMap) -> dict[str, tuple[float, float]]:
    """Positions by node id read from the model's metadata; empty when absent or unreadable."""
    text = model.metadata_props.get(POSITIONS_KEY)
    if not text:
        return {}
    try:
        data = json.loads(text)
        stored = data["nodes"] if isinstance(data, dict) else None
        if not isinstance(stored, dict):
            return {}
        out: dict[str, tuple[float, float]] = {}
        generated = model.meta.get(GENERATED_NAMES_KEY)  # nodes named on opening
        numbered = {ids.node_id(node): f"#{i}" for i, node in enumerate(model.graph)} if generated else {}
        for nid, key in node_keys(model.graph, ids).items():
            xy = stored.get(key, stored.get(numbered.get(nid, "")))  # saved before they had names: by index
            if isinstance(xy, list) and len(xy) == 2:
                out[nid] = (float(xy[0]), float(xy[1]))
        return out
    except (ValueError, TypeError, KeyError):
        return {}
