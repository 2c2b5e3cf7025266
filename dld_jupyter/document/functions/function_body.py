"""A local function's body outside its definition: copies with reference attributes resolved for one call, the
functions a body calls, and the standalone model a body becomes (what Extract Local Function writes and what a
function document checks, since a graph cannot hold references or untyped inputs).

Copies use onnx_ir's Cloner (the engine of ``Function.clone`` and of onnx_ir's inliner): it maps inputs, resolves
references and copies subgraphs with their reads rewired.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import onnx
import onnx_ir as ir
from onnx_ir import _cloner

from dld_jupyter.document.functions.function_model import FunctionKey
from dld_jupyter.document.model.errors import DocumentError

TypeOf = Mapping[str, tuple[ir.TypeProtocol | None, ir.Shape | None]]


def call_attributes(parameters: Mapping[str, ir.Attr], instance: ir.Node | None) -> dict[str, ir.Attr]:
    """The value of each parameter for a call: the instance's attribute, else the parameter's default. A parameter
    with neither is left out, so the body's references to it drop their attribute (the ONNX rule)."""
    values: dict[str, ir.Attr] = {}
    for name, param in parameters.items():
        given = instance.attributes.get(name) if instance is not None else None
        if given is not None and not given.is_ref():
            values[name] = given
        elif param.type != ir.AttributeType.UNDEFINED and param.value is not None:
            values[name] = param
    return values


def resolved_body(
    nodes: Sequence[ir.Node],
    parameters: Mapping[str, ir.Attr],
    instance: ir.Node | None,
    inputs: Mapping[ir.Value, ir.Value | None],
    rename: Callable[[ir.Node], None] = lambda _: None,
) -> list[ir.Node]:
    """Copies of ``nodes`` (a body, in order) reading ``inputs`` (body input -> value, None: omitted), every
    reference resolved for ``instance``; ``rename`` names each copy as it is made."""
    cloner = _cloner.Cloner(
        attr_map=call_attributes(parameters, instance),
        value_map=dict(inputs),
        metadata_props={},
        post_process=rename,
        resolve_ref_attrs=True,
    )
    try:
        return [cloner.clone_node(node) for node in nodes]
    except RuntimeError as error:
        raise DocumentError(
            "Copy a function body",
            f"the body reads a value that is neither a function input nor made in the body ({error.__cause__}).",
            "Open the function and connect that input.",
        ) from None


def nested_functions(model: ir.Model, nodes: Sequence[ir.Node]) -> list[FunctionKey]:
    """The model's functions that ``nodes`` call, directly or through each other."""
    found: list[FunctionKey] = []
    stack: list[Sequence[ir.Node]] = [nodes]
    while stack:
        for node in stack.pop():
            key = (node.domain, node.op_type, node.overload)
            if key in model.functions and key not in found:
                found.append(key)
                stack.append(list(model.functions[key]))
    return found


def model_types(model: ir.Model) -> dict[str, tuple[ir.TypeProtocol | None, ir.Shape | None]]:
    """Types of the main graph's values by name, from onnx shape inference over the model (weights left out)."""
    proto = ir.to_proto(model)
    for tensor in proto.graph.initializer:
        for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            tensor.ClearField(field)
        tensor.ClearField("string_data")
        tensor.data_location = onnx.TensorProto.DEFAULT
        del tensor.external_data[:]
    types: dict[str, tuple[ir.TypeProtocol | None, ir.Shape | None]] = {}
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # a model shape inference rejects still has its declared types
        return types
    for info in (*inferred.graph.value_info, *inferred.graph.output, *inferred.graph.input):
        if info.type.HasField("tensor_type"):
            value = ir.serde.deserialize_value_info_proto(info, None)
            types[info.name] = (value.type, value.shape)
    return types


def instance_types(model: ir.Model, instance: ir.Node | None, known: Callable[[], TypeOf]) -> list[ir.Value | None]:
    """For each input of ``instance``: a detached value carrying its declared type, or the one ``known()`` infers
    (called at most once); None where no type is found."""
    out: list[ir.Value | None] = []
    inferred: TypeOf | None = None
    for actual in instance.inputs if instance is not None else ():
        if actual is None:
            out.append(None)
            continue
        dtype, shape = actual.type, actual.shape
        if dtype is None:
            inferred = known() if inferred is None else inferred
            dtype, shape = inferred.get(actual.name or "", (None, None))
        out.append(None if dtype is None else ir.Value(name=actual.name, type=dtype, shape=shape))
    return out


def standalone_model(
    model: ir.Model,
    graph: ir.Graph,
    parameters: Mapping[str, ir.Attr],
    instance: ir.Node | None,
    types: Sequence[ir.Value | None],
    name: str,
    partial: bool = False,
) -> tuple[ir.Model, dict[ir.Node, ir.Node]]:
    """``graph`` (a body: inputs, nodes, outputs) as a model: inputs typed by ``types`` (by position; None leaves
    the body input's own type), references resolved for ``instance``, the functions it calls copied from ``model``.
    Returns the model and, for each copy, the body node it came from. An output made by nothing is refused, or
    left out with ``partial`` (a body being edited is still checked)."""
    inputs: dict[ir.Value, ir.Value | None] = {}
    for i, formal in enumerate(graph.inputs):
        typed = types[i] if i < len(types) else None
        source = typed if typed is not None else formal
        inputs[formal] = ir.Value(name=formal.name, type=source.type, shape=source.shape)
    body = list(graph)
    copies = resolved_body(body, parameters, instance, inputs)
    made = {
        old: new
        for node, copy in zip(body, copies, strict=True)
        for old, new in zip(node.outputs, copy.outputs, strict=True)
    }
    outputs = [made.get(v) or inputs.get(v) for v in graph.outputs]
    if any(v is None for v in outputs) and not partial:
        raise DocumentError(f"Build function {name}", "a function output is made by nothing.", "Connect it.")
    keys = nested_functions(model, body)
    imports = dict(graph.opset_imports)
    for key in keys:
        imports.setdefault(key[0], model.opset_imports.get(key[0], 1))
        for domain, version in model.functions[key].opset_imports.items():
            imports.setdefault(domain, version)
    new_graph = ir.Graph(
        [v for v in inputs.values() if v is not None],
        [v for v in outputs if v is not None],
        nodes=copies,
        opset_imports=imports,
        name=name.replace(".", "_"),
    )
    functions = [model.functions[key].clone() for key in keys]
    new = ir.Model(new_graph, ir_version=model.ir_version, producer_name="dld_jupyter", functions=functions)
    _type_outputs(new)
    return new, dict(zip(copies, body, strict=True))


def _type_outputs(model: ir.Model) -> None:
    """Give untyped graph outputs the type shape inference finds (a graph output needs one; a body's has none)."""
    if all(v.type is not None for v in model.graph.outputs):
        return
    try:
        inferred = onnx.shape_inference.infer_shapes(ir.to_proto(model))
    except Exception:  # the checks report why; the outputs stay untyped
        return
    found = {info.name: info for info in (*inferred.graph.value_info, *inferred.graph.output)}
    for value in model.graph.outputs:
        info = found.get(value.name or "")
        if value.type is None and info is not None and info.type.HasField("tensor_type"):
            typed = ir.serde.deserialize_value_info_proto(info, None)
            value.type, value.shape = typed.type, typed.shape
