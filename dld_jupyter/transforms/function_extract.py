"""Extract a local function to a standalone model (the Model Local Functions window's save button).

Writes a new file; the document is not changed. Cases handled, in order:
1. the function must exist; the file is `path`, or `<model>_<function>.onnx` beside the model;
2. the body becomes the graph: function inputs/outputs are its inputs/outputs, with their names;
3. input types: the function's own value types when it declares them, else those of the first instance's input
   values (declared, or inferred by onnx shape inference over the whole model). No type known is refused: a graph
   input needs one (place an instance, or run Check on a model with one);
4. reference attributes take the first instance's values, else the parameter defaults (an unset one drops its
   attribute, the ONNX rule);
5. the functions the body calls are copied along, with their domains' imports;
6. output types come from shape inference on the new model; the result must pass onnx.checker (full check), else
   the error says why. Saved through the document layer's atomic save.
"""

from __future__ import annotations

import pathlib
from typing import Any, ClassVar

import onnx
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document import io as document_io
from dld_jupyter.document.function_model import find_function, instances_of
from dld_jupyter.transforms.function_body import nested_functions, resolved_body
from dld_jupyter.transforms.transform import FilePlan, Transform

TypeOf = dict[str, tuple[ir.TypeProtocol, ir.Shape | None]]


def _model_types(doc: Document) -> TypeOf:
    """Types of the main graph's values by name, from onnx shape inference over the model (weights left out)."""
    proto = ir.to_proto(doc.model)
    for tensor in proto.graph.initializer:
        tensor.ClearField("raw_data")
        for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data"):
            tensor.ClearField(field)
        tensor.data_location = onnx.TensorProto.DEFAULT
        del tensor.external_data[:]
    types: TypeOf = {}
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # a model shape inference rejects still has its declared types
        return types
    for info in (*inferred.graph.value_info, *inferred.graph.output, *inferred.graph.input):
        if info.type.HasField("tensor_type"):
            value = ir.serde.deserialize_value_info_proto(info, None)
            if value.type is not None:
                types[info.name] = (value.type, value.shape)
    return types


def standalone(doc: Document, name: str, domain: str, overload: str = "") -> onnx.ModelProto:
    what = f"Extract function {domain}::{name}"
    model = doc.model
    key = find_function(model, name, domain, overload, what)
    function = model.functions[key]
    calls = instances_of(model.graph, key)
    instance = calls[0] if calls else None
    inputs: dict[ir.Value, ir.Value | None] = {}
    known: TypeOf | None = None
    for i, formal in enumerate(function.inputs):
        value = ir.Value(name=formal.name, type=formal.type, shape=formal.shape)
        actual = instance.inputs[i] if instance is not None and i < len(instance.inputs) else None
        if value.type is None and actual is not None:
            value.type, value.shape = actual.type, actual.shape
            if value.type is None:
                known = _model_types(doc) if known is None else known
                value.type, value.shape = known.get(actual.name or "", (None, None))
        if value.type is None:
            raise DocumentError(
                what,
                f"the type of input {formal.name!r} is not known"
                + (" (no instance in the main graph)." if instance is None else "."),
                "Place an instance of the function in the model, connect its inputs, and extract again.",
            )
        inputs[formal] = value
    nodes = resolved_body(function, instance, inputs)
    made = {
        old: new
        for body, copy in zip(function, nodes, strict=True)
        for old, new in zip(body.outputs, copy.outputs, strict=True)
    }
    outputs = [made.get(v) or inputs.get(v) for v in function.outputs]
    if any(v is None for v in outputs):
        raise DocumentError(what, "a function output is made by nothing.", "Open the function and fix it.")
    keys = nested_functions(model, function)
    imports = dict(function.opset_imports)
    for k in keys:
        imports.setdefault(k[0], model.opset_imports.get(k[0], 1))
        for d, version in model.functions[k].opset_imports.items():
            imports.setdefault(d, version)
    graph = ir.Graph(
        list(inputs.values()),  # type: ignore[arg-type]
        outputs,  # type: ignore[arg-type]
        nodes=nodes,
        opset_imports=imports,
        name=function.name.replace(".", "_"),
    )
    new = ir.Model(
        graph,
        ir_version=model.ir_version,
        producer_name="dld_jupyter",
        functions=[model.functions[k].clone() for k in keys],
    )
    proto = ir.to_proto(new)
    try:
        proto = onnx.shape_inference.infer_shapes(proto, strict_mode=True)
        for output in proto.graph.output:
            typed = {v.name: v for v in proto.graph.value_info}.get(output.name)
            if typed is not None and not output.type.HasField("tensor_type"):
                output.type.CopyFrom(typed.type)
        onnx.checker.check_model(proto, full_check=True)
    except Exception as error:  # onnx raises several types; the user needs the message
        raise DocumentError(
            what, f"the extracted model is not valid ONNX: {error}", "Open the function, Check it."
        ) from None
    return proto


def _target(doc: Document, name: str, path: object) -> pathlib.Path:
    if isinstance(path, str | pathlib.Path) and str(path):
        return pathlib.Path(path)
    folder = doc.path.parent if doc.path else pathlib.Path.cwd()
    return folder / f"{doc.name}_{name.replace('.', '_')}.onnx"


class ExtractFunctionModel(Transform):
    name: ClassVar[str] = "extract_function"
    label: ClassVar[str] = "Extract Local Function"
    writes_new_file: ClassVar[bool] = True

    def plan(self, doc: Document, **args: Any) -> FilePlan[pathlib.Path]:
        """`name`, `domain`, `overload` (""): the function; `path`: the new file (default beside the model)."""
        name, domain = str(args.get("name", "")), str(args.get("domain", ""))
        proto = standalone(doc, name, domain, str(args.get("overload", "")))
        target = _target(doc, name, args.get("path")).resolve()

        def write() -> pathlib.Path:
            document_io.save(ir.from_proto(proto), target, {})
            return target

        return FilePlan(f"{self.label} to {target.name}", write)


def extract_function_model(
    doc: Document, name: str, domain: str, path: str | pathlib.Path | None = None, overload: str = ""
) -> pathlib.Path:
    """Write function ``domain::name`` as a standalone model to ``path``; returns the file written."""
    result: pathlib.Path = ExtractFunctionModel().apply(doc, name=name, domain=domain, path=path, overload=overload)
    return result
