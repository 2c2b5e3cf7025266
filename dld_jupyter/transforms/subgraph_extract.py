"""Extract Model Subgraph: one subgraph of a node (Loop/Scan body, If branch, GRAPHS entry) as a model of its own.

Writes a new file; the document is not changed. Cases handled, in order:
1. the slot: `node_id` is an op node of the document (a subgraph document works too: nested bodies), `attribute`
   one of its subgraph attributes, `index` None for a GRAPH attribute or the entry of a GRAPHS list;
2. the body's own inputs stay the model's first inputs; each outer reference (a value of the enclosing graphs the
   body reads) becomes one more graph input, typed like that value (its declared type, else the document's last
   inference, else shape inference now);
3. opsets, IR version and local functions come from the document's model;
4. the model must pass `onnx.checker.check_model(full_check=True)`, else the error says what failed;
5. the file: `path`, or `<model>_<attribute>.onnx` beside the model (then `_2`, ...), through the document
   layer's atomic save.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any, ClassVar

import onnx
import onnx_ir as ir

from dld_jupyter.document import ChildDocument, Document, DocumentError
from dld_jupyter.document.files import io as document_io
from dld_jupyter.document.files.self_contained import self_contained_proto
from dld_jupyter.document.subgraphs.subgraph_document import outer_value_types, standalone_model
from dld_jupyter.document.subgraphs.subgraph_scope import copy_graph, graph_at, slot_label
from dld_jupyter.transforms.transform import FilePlan, Transform


class ExtractModelSubgraph(Transform):
    name: ClassVar[str] = "extract_model_subgraph"
    label: ClassVar[str] = "Extract Model Subgraph"
    writes_new_file: ClassVar[bool] = True

    def plan(self, doc: Document, **args: Any) -> FilePlan[pathlib.Path]:
        """`node_id`, `attribute`, `index` (None for GRAPH attributes): the subgraph; `path`: the new file."""
        node_id, attribute, index = args.get("node_id"), args.get("attribute"), args.get("index")
        if not isinstance(node_id, str) or not isinstance(attribute, str):
            raise DocumentError(self.label, "no subgraph is chosen.", "Pass node_id and attribute (and index).")
        model = standalone_subgraph(doc, node_id, attribute, index)
        target = _target(doc, args.get("path"), attribute).resolve()

        def write() -> pathlib.Path:
            document_io.save(model, target, {})
            return target

        return FilePlan(f"{self.label} to {target.name}", write)


def standalone_subgraph(doc: Document, node_id: str, attribute: str, index: int | None) -> ir.Model:
    """The subgraph in slot (attribute, index) of ``node_id`` as a checked standalone model."""
    what = f"{ExtractModelSubgraph.label} {slot_label(attribute, index)}"
    node = doc.ir_node(node_id)
    if node is None:
        raise DocumentError(what, f"node {node_id!r} is not in the graph.", "Use an op node id from doc.nodes().")
    body = graph_at(node, attribute, index, what)
    model, _nodes = standalone_model(copy_graph(body, outer_value_types(doc, body)), doc.model)
    if not model.graph.name:
        model.graph.name = attribute
    try:  # with references, the checker would look for external data in the working folder
        onnx.checker.check_model(self_contained_proto(model, what), full_check=True)
    except DocumentError:
        raise
    except Exception as error:  # onnx raises several types; the user needs the message
        why = f"the standalone model is not valid ONNX: {error}"
        raise DocumentError(what, why, "Open the subgraph, run Check there and fix what it reports.") from None
    return model


def extract_model_subgraph(
    doc: Document, node_id: str, attribute: str, index: int | None, path: str | os.PathLike[str] | None = None
) -> pathlib.Path:
    """Write subgraph (attribute, index) of ``node_id`` to ``path`` as a standalone model; returns the file."""
    result: pathlib.Path = ExtractModelSubgraph().apply(
        doc, node_id=node_id, attribute=attribute, index=index, path=None if path is None else str(path)
    )
    return result


def _target(doc: Document, path: object, attribute: str) -> pathlib.Path:
    if isinstance(path, str) and path:
        return pathlib.Path(path)
    root = doc
    while isinstance(root, ChildDocument):
        root = root.parent
    folder = root.path.parent if root.path else pathlib.Path.cwd()
    for k in range(1, 1000):
        candidate = folder / f"{root.name}_{attribute}{'' if k == 1 else f'_{k}'}.onnx"
        if not candidate.exists():
            return candidate
    raise DocumentError(ExtractModelSubgraph.label, "too many extracted models beside this one.", "Pass a path.")
