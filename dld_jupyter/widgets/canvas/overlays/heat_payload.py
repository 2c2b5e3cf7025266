"""The heat of a report as one compact overlay message for the canvas (js mirror: overlays/heat_scale.ts decodes it,
same names).

Values of every op node and every name-scope group of the canvas (collapsed or not: expanding and collapsing
never needs the kernel again), computed by reports/heat.py. Text travels joined with the ASCII unit separator;
numbers travel in one little-endian Float64 buffer, in this order:

    time[n]  share[n]  layer_count[n]  |  median_ms[L]  percent[L]  ci_low[L]  ci_high[L]

for the n element ids of `ids` and the L layers of the report. NaN: no value (a node without a layer, a layer
without a confidence interval). `layers` names each element's layers as comma-separated positions (a group: its
three largest layers; `layer_count` says how many it has); `reasons` gives a node without a value an index into
`reason_texts`.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from dld_jupyter.document import Document
from dld_jupyter.reports.heat import METRICS, UNITS, Heat, group_members, layer_value
from dld_jupyter.widgets.canvas.grouping import Grouping, group_id
from dld_jupyter.widgets.canvas.protocol import OverlayMessage
from dld_jupyter.widgets.report.report_payload import Packer, joined

HeatMetric = Literal["time", "share"]
GROUP_TOP = 3  # layers a group names in its tooltip (largest first)
STALE = "not in this report: added or changed after it was profiled"


class HeatSetMessage(OverlayMessage):
    """The heat overlay's state: every element's values (the Float64 buffer) and the texts that go with them."""

    metric: HeatMetric
    units: dict[str, str]
    source: str
    count: int
    ids: str
    layers: str
    reasons: str
    reason_texts: list[str]
    layer_count: int
    layer_names: str


class HeatViewMessage(OverlayMessage, total=False):
    """From the browser: the legend's close button (action "closed") and metric switch (action "metric", with the
    new metric)."""

    metric: HeatMetric


@dataclass(frozen=True)
class HeatElements:
    """Per canvas element: (id, its layers, reason when it has none)."""

    ids: list[str]
    layers: list[list[int]]
    reasons: list[str]


def node_names(document: Document) -> dict[str, str]:
    """Node id -> the name reports use for it: its name (opening names unnamed nodes as the profiler does)."""
    node_id = document.node_id
    return {node_id(node): node.name or "" for node in document.model.graph}


def heat_elements(heat: Heat, document: Document, grouping: Grouping, stale: Collection[str] = ()) -> HeatElements:
    """Every node's and group's layers; a `stale` node (changed since the report) has none, and says so."""
    names = node_names(document)
    ids: list[str] = []
    layers: list[list[int]] = []
    reasons: list[str] = []
    for node, name in names.items():
        ids.append(node)
        layers.append([] if node in stale else sorted(heat.layers_of.get(name, ())))
        reasons.append(STALE if node in stale else heat.reason(name))
    if grouping.enabled:
        paths = {node: grouping.path.get(node, ()) for node in names}
        for path, members in group_members(paths).items():
            ids.append(group_id(path))
            layers.append(sorted(heat.group_layers(names[m] for m in members if m not in stale)))
            reasons.append("" if layers[-1] else "no layer of this group ran: every node was removed or is new")
    return HeatElements(ids, layers, reasons)


def heat_message(
    heat: Heat, document: Document, grouping: Grouping, metric: HeatMetric, source: str, stale: Collection[str] = ()
) -> tuple[HeatSetMessage, bytes]:
    """The heat overlay's "set" message and its buffer (see the module doc)."""
    elements = heat_elements(heat, document, grouping, stale)
    report = heat.report
    packer = Packer()
    for name in METRICS:
        packer.add(_nan(heat.value(found, name)) for found in elements.layers)
    packer.add(float(len(found)) for found in elements.layers)
    packer.add(layer.median_ms for layer in report.layers)
    packer.add(layer.percent for layer in report.layers)
    packer.add(layer.ci_ms[0] if layer.ci_ms else math.nan for layer in report.layers)
    packer.add(layer.ci_ms[1] if layer.ci_ms else math.nan for layer in report.layers)
    texts: dict[str, int] = {}
    codes = [str(texts.setdefault(reason, len(texts))) if reason else "" for reason in elements.reasons]
    message: HeatSetMessage = {
        "kind": "overlay",
        "overlay": "heat",
        "action": "set",
        "metric": metric,
        "units": UNITS,
        "source": source,
        "count": len(elements.ids),
        "ids": joined(elements.ids),
        "layers": joined(",".join(map(str, _shown(heat, found))) for found in elements.layers),
        "reasons": joined(codes),
        "reason_texts": list(texts),
        "layer_count": len(report.layers),
        "layer_names": joined(layer.name for layer in report.layers),
    }
    return message, packer.to_bytes()


def _shown(heat: Heat, found: list[int]) -> list[int]:
    """A node's own layers; a group's largest few (its tooltip names them)."""
    if len(found) <= GROUP_TOP:
        return found
    return sorted(found, key=lambda i: -layer_value(heat.report.layers[i], "time"))[:GROUP_TOP]


def _nan(value: float | None) -> float:
    return math.nan if value is None else value
