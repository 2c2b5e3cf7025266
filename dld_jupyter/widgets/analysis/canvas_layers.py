"""Analysis layers from the canvas (seed 001 §4 "the Analysis category of the layer palette", issue 37): while a
model is analysed, a node's context menu inserts an analysis layer after it (Affine, Noise, Snapshot on its output;
a Mix of its output and a second selected node's), the nodes an analysis layer follows wear a badge and a line
naming it, and the same menu removes it.

Why a module of its own: the canvas speaks node ids, the analysis speaks ONNX value names; this maps one to the other
and hands the request to the one way in, `Analysis.add_layer` / `remove_layer` (frontdoor/analysis_layers.py), the
same the Parameter Editor's Insert uses, so both give the same analysis copy. The layers live in that copy only:
the document stays read-only and never sees one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dld_jupyter.activities.analysis.layers import KINDS, AnalysisLayer
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.document import Document
from dld_jupyter.document.model.ids import IO_KINDS, kind_of, value_node_id
from dld_jupyter.formats.html_text import small
from dld_jupyter.widgets.analysis.layer_editor import HINT


def value_of(document: Document, node_id: str) -> str:
    """The value an analysis layer after `node_id` reads: an op node's first output, a graph input's value."""
    node = document.ir_node(node_id)
    if node is not None:
        if not node.outputs or not node.outputs[0].name:
            raise SpecError(f"{node.name or node_id} has no output an analysis layer could read")
        return str(node.outputs[0].name)
    if kind_of(node_id) in IO_KINDS:
        for value in (*document.model.graph.inputs, *document.model.graph.outputs):
            if node_id in (value_node_id("input", document.value_id(value)),
                           value_node_id("output", document.value_id(value))) and value.name:
                return str(value.name)
    raise SpecError(f"{node_id!r} is no node of the analysed graph: pick a node or a graph input of the main graph")


def producers(document: Document) -> dict[str, str]:
    """Value name → the canvas node standing for where it comes from (its op node, or its graph input node)."""
    found: dict[str, str] = {}
    graph = document.model.graph
    for value in graph.inputs:
        if value.name:
            found[value.name] = value_node_id("input", document.value_id(value))
    for node in graph:
        for output in node.outputs:
            if output.name:
                found[output.name] = document.node_id(node)
    return found


def badges(document: Document, layers: list[AnalysisLayer]) -> dict[str, list[dict[str, str]]]:
    """Node id → the analysis layers that follow it ({name, kind}), for the canvas's badge and menu."""
    where = producers(document)
    shown: dict[str, list[dict[str, str]]] = {}
    for layer in layers:
        for value in dict.fromkeys(layer.inputs):
            node = where.get(value)
            if node is not None:
                shown.setdefault(node, []).append({"name": layer.name, "kind": layer.kind})
    return shown


def add_after(analysis: Any, document: Document, kind: str, node_id: str, other: str = "") -> str:
    """Insert a `kind` analysis layer after `node_id` (a Mix: of its output, then `other`'s); returns its name."""
    if kind not in KINDS:
        raise SpecError(f"analysis layer: {kind!r} is not one of {sorted(KINDS)} (the palette's Analysis category)")
    values = [value_of(document, node_id)]
    if KINDS[kind][0] == 2:
        if not other:
            raise SpecError(f"a {kind} reads two values: select a second node, then choose {kind} on the first")
        values.append(value_of(document, other))
    name: str = analysis.add_layer(kind, *values)
    return name


def add_requested(panel: Any, kind: str, node: str, other: str) -> None:
    """The canvas menu's Add Analysis Layer through the panel: a `kind` layer after `node` (a Mix: and `other`)."""
    document = panel.designer.document
    _through(panel, lambda live: add_after(live, document, kind, node, other))


def remove_requested(panel: Any, layer: str) -> None:
    """The canvas menu's Remove Analysis Layer through the panel: the layer named `layer`."""
    _through(panel, lambda live: live.remove_layer(layer))


def _through(panel: Any, change: Callable[[Any], object]) -> None:
    """`change` the live analysis: refused before launch saying why; the panel redraws (badges, outputs, sliders),
    or, when the analysis refused (the panel's error says why), keeps that message (a redraw clears it)."""
    live = panel.analysis
    if live is None:
        panel.error.value = small(HINT)
        return
    panel.error.value = ""
    panel._quiet(lambda: change(live))
    if not panel.error.value:
        panel.refresh()
