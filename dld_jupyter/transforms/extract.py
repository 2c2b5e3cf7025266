"""Extract a selection of nodes into a standalone model (seed "Editing a Model", Extract Subgraph).

Writes a new file; the document is not changed. Cases handled, in order:
1. only operator nodes of the selection count (graph inputs/outputs are not operators); none is refused;
2. inputs: every value a selected node reads that no selected node produces and that is no initializer;
3. outputs: every value a selected node produces that a node outside reads, that is a graph output, or that no
   selected node reads (a dangling output); none is refused;
4. onnx.utils.Extractor cuts a shape-inferred copy, so the new inputs and outputs carry types and shapes, with the
   initializers the selection uses; the result must pass onnx.checker, else the error says to run Check;
5. the file: `path`, or `<model>_extract.onnx` (then `_extract2`, ...) beside the model (or in the working folder),
   saved through the document layer's atomic save (write beside, fsync, rename).
"""

from __future__ import annotations

import pathlib
from typing import Any, ClassVar

import onnx
import onnx.utils
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document import io as document_io
from dld_jupyter.transforms.transform import FilePlan, Requirement, Transform, selected_ops


class ExtractSubgraph(Transform):
    name: ClassVar[str] = "extract"
    label: ClassVar[str] = "Extract selection"
    requires = frozenset({Requirement.SELECTION})
    writes_new_file: ClassVar[bool] = True

    def plan(self, doc: Document, **args: Any) -> FilePlan[pathlib.Path]:
        """`node_ids`: the selection; `path`: the new file (default beside the model)."""
        self.check(doc, **args)
        extracted = _extract(doc, selected_ops(doc, list(args["node_ids"])))
        target = _target(doc, args.get("path")).resolve()

        def write() -> pathlib.Path:
            document_io.save(ir.from_proto(extracted), target, {})
            return target

        return FilePlan(f"{self.label} to {target.name}", write)


def _extract(doc: Document, node_ids: list[str]) -> onnx.ModelProto:
    what = ExtractSubgraph.label
    views = [doc.node(n) for n in node_ids]
    graph = doc.model.graph
    initializers = set(graph.initializers)
    produced = {t.value_name for v in views for t in v.outputs if t.value_name}
    consumed_inside = {t.value_name for v in views for t in v.inputs if t.value_name}
    inputs = sorted({n for n in consumed_inside if n not in produced and n not in initializers}, key=str)
    selected = {v.name for v in views}
    graph_outputs = {v.name for v in graph.outputs}
    consumers_outside: set[str] = set()
    for node in graph:
        if node.name in selected:
            continue
        consumers_outside.update(v.name for v in node.inputs if v is not None and v.name in produced)
    outputs = [
        t.value_name
        for v in views
        for t in v.outputs
        if t.value_name
        and (t.value_name in consumers_outside or t.value_name in graph_outputs or t.value_name not in consumed_inside)
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
    return extracted


def _target(doc: Document, path: object) -> pathlib.Path:
    if isinstance(path, str) and path:
        return pathlib.Path(path)
    folder = doc.path.parent if doc.path else pathlib.Path.cwd()
    stem = doc.name
    for k in range(1, 1000):
        candidate = folder / f"{stem}_extract{'' if k == 1 else k}.onnx"
        if not candidate.exists():
            return candidate
    raise DocumentError(ExtractSubgraph.label, "too many extracted models beside this one.", "Pass a path.")
