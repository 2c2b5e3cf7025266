"""Heat on the canvas: which time of a report each ONNX node (and each group of nodes) stands for.

A report's layers name the ONNX nodes they come from (`Layer.onnx_nodes`); ONNX Runtime attributes every node of the
model to a layer or lists it in `removed_nodes` with a reason (activities/runtimes/onnxruntime/nodes.py). From that:

- a node's value is the time (median-pass ms) or share (% of the layer sum) of the layer(s) it belongs to. A layer
  that fused several nodes (Conv+Relu) gives each of them its whole time: the node is part of work that took that
  long; splitting it would invent a cost per node that nobody measured;
- a group's value is the sum over the distinct layers of its members: a fused layer counts once, so a group's value
  never exceeds the layer sum of the report, and a group holding the whole model gets 100 %;
- a node without a layer has no value and a reason instead: removed by the optimizer (the report's reason), or not
  in the report at all (the model changed since it was profiled).

Pure data: the canvas heat overlay (widgets/canvas/overlays/heat_payload.py) turns it into one compact message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from dld_jupyter.report_format.model import Layer, Report

METRICS = ("time", "share")
UNITS = {"time": "ms", "share": "%"}
NOT_IN_REPORT = "not in this report: the model changed since it was profiled (profile again)"
REMOVED = "removed by the optimizer: it has no layer of its own"


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"heat metric {metric!r}: use 'time' (median ms per layer) or 'share' (% of the layer sum)")
    return metric


def layer_value(layer: Layer, metric: str) -> float:
    return layer.median_ms if metric == "time" else layer.percent


@dataclass
class Heat:
    """Node name -> its layers (positions in `report.layers`), and the reasons of nodes without a layer."""

    report: Report
    layers_of: dict[str, tuple[int, ...]] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def value(self, layers: Iterable[int], metric: str = "time") -> float | None:
        """Sum of the distinct layers' values (None when there is no layer)."""
        distinct = set(layers)
        if not distinct:
            return None
        return sum(layer_value(self.report.layers[i], metric) for i in distinct)

    def node_value(self, name: str, metric: str = "time") -> float | None:
        return self.value(self.layers_of.get(name, ()), metric)

    def reason(self, name: str) -> str:
        """Why the node has no value ("" when it has one)."""
        if self.layers_of.get(name):
            return ""
        return self.reasons.get(name, NOT_IN_REPORT)

    def group_layers(self, names: Iterable[str]) -> set[int]:
        found: set[int] = set()
        for name in names:
            found.update(self.layers_of.get(name, ()))
        return found

    def group_value(self, names: Iterable[str], metric: str = "time") -> float | None:
        """The sum over the distinct layers of the members (a fused layer counted once)."""
        return self.value(self.group_layers(names), metric)


def heat_of(report: Report) -> Heat:
    """Every node the report knows: the layers it belongs to, or why it has none."""
    layers_of: dict[str, list[int]] = {}
    for position, layer in enumerate(report.layers):
        for name in layer.onnx_nodes:
            owned = layers_of.setdefault(name, [])
            if position not in owned:
                owned.append(position)
    reasons = {
        name: report.removed_reasons.get(name) or REMOVED for name in report.removed_nodes if name not in layers_of
    }
    return Heat(report, {name: tuple(found) for name, found in layers_of.items()}, reasons)


def group_members(paths: Mapping[str, tuple[str, ...]]) -> dict[tuple[str, ...], list[str]]:
    """Every group path (each prefix of a node's path) -> the nodes inside it, at any depth."""
    members: dict[tuple[str, ...], list[str]] = {}
    for node, path in paths.items():
        for depth in range(1, len(path) + 1):
            members.setdefault(path[:depth], []).append(node)
    return members
