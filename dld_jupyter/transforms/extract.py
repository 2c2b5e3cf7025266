"""Extract a selection of nodes into a standalone model (seed "Editing a Model", Extract Subgraph).

Writes a new file; the document is not changed. Cases handled, in order:
1. only operator nodes of the selection count (graph inputs/outputs are not operators); none is refused;
2. inputs: every value a selected node reads that no selected node produces and that is no initializer, the
   values the bodies of selected Loop/If/Scan nodes read from outside (outer references) included;
3. outputs: every value a selected node produces that a node outside reads, that is a graph output, or that no
   selected node reads (a dangling output); none is refused;
4. the selected nodes are cut from a shape-inferred copy, so the new inputs and outputs carry types and shapes,
   with the initializers the selection uses (those only a body reads included); the external ones among them
   are read then, each from its own model's folder (document/files/self_contained.py), not from the working folder;
   an input or output whose rank inference left unknown gets the type the document knows, and one still
   without a shape is refused with the value's name; the result must pass onnx.checker (full check), else the
   error says to run Check;
5. the file: `path`, or `<model>_extract.onnx` (then `_extract2`, ...) beside the model (or in the working folder),
   saved through the document layer's atomic save (write beside, fsync, rename).
"""

from __future__ import annotations

import pathlib
from typing import Any, ClassVar

import onnx
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.files import io as document_io
from dld_jupyter.document.files.self_contained import load_initializers_data, load_nodes_data
from dld_jupyter.document.subgraphs.subgraph_scope import outer_names, subtree
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
    body_reads = _body_reads(doc, node_ids)
    consumed_inside |= body_reads
    inputs = sorted({n for n in consumed_inside if n not in produced and n not in initializers}, key=str)
    selected = {v.name for v in views}
    graph_outputs = {v.name for v in graph.outputs}
    consumers_outside: set[str] = set()
    for node in graph:
        if node.name in selected:
            continue
        consumers_outside.update(v.name for v in node.inputs if v is not None and v.name in produced)
        consumers_outside.update(name for name in _body_reads_of(node) if name in produced)
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
    in_order = list(graph)
    order = {node: i for i, node in enumerate(in_order)}
    indexes = sorted(order[node] for node in map(doc.ir_node, node_ids) if node is not None)
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
        extracted = _cut(inferred, indexes, inputs, list(dict.fromkeys(outputs)), consumed_inside)
        _load_weights(doc, extracted, [in_order[i] for i in indexes])
        _complete_io_types(doc, extracted, inferred)
        onnx.checker.check_model(extracted, full_check=True)
    except DocumentError:
        raise
    except Exception as error:  # onnx raises several types; the user needs the message
        raise DocumentError(what, f"the sub-model is not valid ONNX: {error}", "Run Check and fix the model.") from None
    return extracted


def _load_weights(doc: Document, extracted: onnx.ModelProto, nodes: list[ir.Node]) -> None:
    """Give the external tensors the cut kept their bytes (its nodes are ``nodes``, in graph order)."""
    what = ExtractSubgraph.label
    load_initializers_data(extracted.graph, doc.model.graph, what)
    load_nodes_data(extracted.graph.node, nodes, what)
    for function_proto, function in zip(extracted.functions, doc.model.functions.values(), strict=True):
        load_nodes_data(function_proto.node, function, what)


def _body_reads_of(node: ir.Node) -> set[str]:
    """Names of the values that the subgraphs of ``node`` read from outside them."""
    names: set[str] = set()
    for attr in node.attributes.values():
        if attr.is_ref() or attr.type not in (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS):
            continue
        for body in [attr.value] if attr.type == ir.AttributeType.GRAPH else attr.value:
            names.update(outer_names(body))
    return names


def _body_reads(doc: Document, node_ids: list[str]) -> set[str]:
    """Names of the values that subgraphs of the selected nodes read from the main graph."""
    nodes = [doc.ir_node(node_id) for node_id in node_ids]
    return {name for node in nodes if node is not None for name in _body_reads_of(node)}


def _cut(
    source: onnx.ModelProto, indexes: list[int], inputs: list[str], outputs: list[str], reads: set[str]
) -> onnx.ModelProto:
    """The selected nodes (by index in graph order) of a shape-inferred model as a model of their own: typed
    inputs and outputs where inference typed them, the initializers they (or their bodies) read."""
    graph = source.graph
    infos = {vi.name: vi for vi in (*graph.input, *graph.value_info, *graph.output)}

    def info(name: str) -> onnx.ValueInfoProto:
        return infos[name] if name in infos else onnx.ValueInfoProto(name=name)

    cut = onnx.helper.make_graph(
        [graph.node[i] for i in indexes],
        f"{graph.name}_extract" if graph.name else "extract",
        [info(name) for name in inputs],
        [info(name) for name in outputs],
        [t for t in graph.initializer if t.name in reads],
    )
    model = onnx.helper.make_model(cut, opset_imports=source.opset_import, ir_version=source.ir_version)
    model.functions.extend(source.functions)
    return model


def _loop_state_type(inferred: onnx.ModelProto, name: str) -> onnx.TypeProto | None:
    """The type of `name` when it is a Loop's final state whose rank ONNX inference left unknown (a body that
    rebinds the state inside an If, as a scripted GRU's does): the initial value's type, each dimension kept where
    the body's output agrees with it and unknown elsewhere; None for anything else (or ranks that differ)."""
    graph = inferred.graph
    infos = {vi.name: vi for vi in (*graph.input, *graph.value_info, *graph.output)}
    for node in graph.node:
        if node.op_type != "Loop" or name not in node.output:
            continue
        k = list(node.output).index(name)
        body = next((a.g for a in node.attribute if a.name == "body"), None)
        if k >= len(node.input) - 2 or body is None or len(body.output) <= k + 1:
            return None  # a scan output (stacked per iteration): no initial value to take the rank from
        initial, step = infos.get(node.input[2 + k]), body.output[1 + k].type.tensor_type
        if initial is None or not initial.type.tensor_type.HasField("shape") or not step.HasField("shape"):
            return None
        found = onnx.TypeProto()
        found.CopyFrom(initial.type)
        dims = found.tensor_type.shape.dim
        if len(dims) != len(step.shape.dim):
            return None
        for dim, other in zip(dims, step.shape.dim, strict=True):
            if dim != other:
                dim.Clear()  # changes between iterations (or inference cannot tell): unknown
        return found
    return None


def _complete_io_types(doc: Document, extracted: onnx.ModelProto, inferred: onnx.ModelProto) -> None:
    """Give graph inputs and outputs without a shape the type and shape the document knows (its values, the last
    check's inference, a Loop state's rank); refuse the ones still unknown: onnx.checker requires them."""
    known = {v.name: v for g in subtree(doc.model.graph) for n in g for v in n.outputs}
    known.update((v.name, v) for v in doc.model.graph.inputs)
    for info in (*extracted.graph.input, *extracted.graph.output):
        if info.type.HasField("tensor_type") and info.type.tensor_type.HasField("shape"):
            continue
        value = known.get(info.name)
        dtype, shape = doc.inferred.get(doc.value_id(value), (None, None)) if value is not None else (None, None)
        if value is not None and value.type is not None and value.shape is not None:
            ir.serde.serialize_value_into(info, value)
        elif dtype is not None and shape is not None:
            typed = ir.Value(name=info.name, type=ir.TensorType(ir.DataType[dtype.upper()]))
            typed.shape = ir.Shape([None if d == "?" else d for d in shape])
            ir.serde.serialize_value_into(info, typed)
        elif (state := _loop_state_type(inferred, info.name)) is not None:
            info.type.CopyFrom(state)
        else:
            raise DocumentError(
                ExtractSubgraph.label,
                f"the type or shape of {info.name!r} is unknown, and a standalone model needs it.",
                "Run Check first (it infers shapes), or select the nodes that compute it too.",
            )


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
