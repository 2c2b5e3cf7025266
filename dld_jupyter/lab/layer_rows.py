"""Rows of the JupyterLab layer explorer and entries of the operator palette, built from a Document.

Columnar and JSON-ready: a 50,000-node model is one message of parallel string lists, not 50,000 objects.
"""

from __future__ import annotations

from typing import TypedDict

from dld_jupyter.activities.analysis.layers import CATEGORY, PALETTE_DOMAIN, SUMMARIES
from dld_jupyter.document import Document
from dld_jupyter.document.operators.operator_docs import summary_of
from dld_jupyter.formats.trt_metadata import TRT_PRECISION_KEY  # the format the document writes


class LayerColumns(TypedDict):
    ids: list[str]
    names: list[str]
    types: list[str]
    domains: list[str]
    precisions: list[str]  # "" when no constraint is set
    constants: list[bool]


class PaletteEntry(TypedDict):
    name: str
    domain: str
    category: str
    since_version: int
    summary: str
    function: bool  # a local function of the model


def layer_columns(document: Document, node_ids: list[str] | None = None) -> LayerColumns:
    """Op nodes of the document (graph I/O pseudo-nodes are not layers), optionally only `node_ids`."""
    columns: LayerColumns = {"ids": [], "names": [], "types": [], "domains": [], "precisions": [], "constants": []}
    if node_ids is None:
        pairs = [(document.node_id(node), node) for node in document.model.graph]
    else:  # an edit touches a few nodes: look them up, never walk a 50,000-node graph per edit
        found = ((node_id, document.ir_node(node_id)) for node_id in dict.fromkeys(node_ids))
        pairs = [(node_id, node) for node_id, node in found if node is not None]
    for node_id, node in pairs:
        columns["ids"].append(node_id)
        columns["names"].append(node.name or "")
        columns["types"].append(node.op_type)
        columns["domains"].append(node.domain or "ai.onnx")
        columns["precisions"].append(node.metadata_props.get(TRT_PRECISION_KEY, ""))
        columns["constants"].append(node.op_type == "Constant" and node.domain in ("", "ai.onnx"))
    return columns


def palette_entries(document: Document) -> list[PaletteEntry]:
    """Operators of the opsets the model imports, plus its local functions, plus the Analysis category (analysis
    layers, seed 001 §4: inserted after a node only while analysing, into the analysis copy, never the model)."""
    from dld_jupyter.document.operators.schema import registry

    entries: list[PaletteEntry] = []
    for schema in registry.ops_for(dict(document.model.opset_imports)):
        entries.append(
            {
                "name": schema.name,
                "domain": schema.domain or "ai.onnx",
                "category": schema.category,
                "since_version": schema.since_version,
                "summary": summary_of(schema.doc),
                "function": False,
            }
        )
    for function in document.model.functions.values():
        entries.append(
            {
                "name": function.name,
                "domain": function.domain,
                "category": "local function",
                "since_version": 1,
                "summary": summary_of(function.doc_string or f"Local function {function.domain}::{function.name}"),
                "function": True,
            }
        )
    for kind, summary in SUMMARIES.items():
        entries.append(
            {
                "name": kind,
                "domain": PALETTE_DOMAIN,
                "category": CATEGORY,
                "since_version": 1,
                "summary": f"Analysis layer, while analysing only (never saved): {summary}",
                "function": False,
            }
        )
    return entries
