"""A report's heat as Model Explorer node data: the time (or share) of each ONNX node's layers, keyed by the ids
Model Explorer's ONNX adapter gives the nodes, so a profile colours the graph there as it does on the canvas.

The values are reports/heat.py's (a node of a fused layer gets the layer's whole time; a node removed by the
optimizer, or not in the report, has no value and is left out). A report names an unnamed node as opening the
model does (formats/node_names.py, `node_3`), which is Model Explorer's id unless a name is repeated: the model
itself maps one to the other, so it is needed: the report's own model path, or another given (the model the report
was profiled from).
"""

from __future__ import annotations

import os
from typing import Any

import onnx_ir as ir

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.document.layout.explorer_ids import explorer_node_ids
from dld_jupyter.model_compare.node_data import graph_node_data
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.heat import check_metric, heat_of


def report_names(graph: ir.Graph) -> list[str]:
    """The name each node of `graph` (opened by document/files/io.py: unnamed ones named) has in a report, in graph
    order."""
    return [node.name or "" for node in graph]


def heat_node_data(report: Report, graph: ir.Graph, metric: str = "time") -> dict[str, Any]:
    """GraphNodeData of the report's heat on `graph` (the model profiled): node id → its layers' time or share."""
    heat = heat_of(report)
    check_metric(metric)
    values: dict[str, float] = {}
    for key, name in zip(explorer_node_ids(graph), report_names(graph), strict=True):
        value = heat.node_value(name, metric)
        if value is not None:
            values[key] = value
    if not values:
        raise SpecError(f"no node of the model is in the report ({len(heat.layers_of)} nodes named by its layers, "
                        "none of them in the model): give the model the report was profiled from")
    return graph_node_data(values)


def report_model(report: Report, model: str | os.PathLike[str] | None = None) -> ir.Graph:
    """The graph of `model`, else of the model the report names (SpecError saying to give one when neither opens)."""
    from dld_jupyter.document.files import io as doc_io

    path = os.fspath(model) if model is not None else report.summary.model_path
    if not path:
        raise SpecError("the report names no model (an import without one): give the profiled model (--model)")
    if not os.path.isfile(path):
        raise SpecError(f"the model {path} is not a file (the report's model moved, or it was profiled elsewhere): "
                        "give the profiled model (--model)")
    return doc_io.load(path).graph
