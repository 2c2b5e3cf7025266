"""Extract a selection of nodes into a standalone model (seed "Editing a Model", Extract Subgraph).

The new model has the selected nodes, the initializers they use, a graph input for every value flowing in from
outside and a graph output for every value leaving the selection (or unused). onnx.utils.Extractor does the cut on
a shape-inferred copy so the new inputs and outputs carry types and shapes; the result passes onnx.checker.
"""

from __future__ import annotations

import pathlib

import onnx
import onnx.utils
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError


def extract_selection(doc: Document, node_ids: list[str], path: object = None) -> pathlib.Path:
    what = "Extract selection"
    views = [doc.node(n) for n in node_ids if not n.startswith("g:")]
    views = [v for v in views if v.kind == "op"]
    if not views:
        raise DocumentError(what, "no operator is selected.", "Select the nodes to extract.")
    graph = doc.model.graph
    initializers = set(graph.initializers)
    produced = {t.value_name for v in views for t in v.outputs if t.value_name}
    consumed_inside = {t.value_name for v in views for t in v.inputs if t.value_name}
    inputs = sorted(
        {n for n in consumed_inside if n not in produced and n not in initializers}, key=str
    )
    selected = {v.name for v in views}
    graph_outputs = {v.name for v in graph.outputs}
    consumers_outside: set[str] = set()
    for node in graph:
        if node.name in selected:
            continue
        consumers_outside.update(v.name for v in node.inputs if v is not None and v.name in produced)
    outputs = [
        t.value_name for v in views for t in v.outputs
        if t.value_name and (t.value_name in consumers_outside or t.value_name in graph_outputs
                             or t.value_name not in consumed_inside)
    ]
    if not outputs:
        raise DocumentError(what, "the selection produces no value.", "Select nodes with outputs.")
    proto = ir.to_proto(doc.model)
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
        extracted = onnx.utils.Extractor(inferred).extract_model(inputs, list(dict.fromkeys(outputs)))
        onnx.checker.check_model(extracted)
    except Exception as error:  # onnx raises several types; the user needs the message
        raise DocumentError(what, f"the sub-model is not valid ONNX: {error}", "Run Check and fix the model.") from None
    target = _target(doc, path).resolve()
    onnx.save(extracted, target)
    return target


def _target(doc: Document, path: object) -> pathlib.Path:
    if isinstance(path, str) and path:
        return pathlib.Path(path)
    folder = doc.path.parent if doc.path else pathlib.Path.cwd()
    stem = doc.name
    for k in range(1, 1000):
        candidate = folder / f"{stem}_extract{'' if k == 1 else k}.onnx"
        if not candidate.exists():
            return candidate
    raise DocumentError("Extract selection", "too many extracted models beside this one.", "Pass a path.")
