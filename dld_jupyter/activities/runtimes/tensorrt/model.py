"""What a TensorRT build takes from the model file: its top-level inputs, the optimization profiles and inferred
batch stored with it, and the layer precision constraints of its nodes (format: `document.trt_metadata`).

Read with `onnx` without loading external weights, so a dry run and the worker see exactly what the user saved,
and the worker needs no onnx-ir. Every stored value is checked with the rules the dialogs apply when they write it
(`formats.trt_metadata`): a model edited by other tools used to reach trtexec unchecked (a stored `FP16` ended in a
KeyError, a profile with min > max was passed on), now it is bad input naming the value and the fix.
`build_shapes` resolves every dynamic input to one min/opt/max profile, or says
which input lacks one (TensorRT would fail with "dynamic input is missing dimensions in profile 0").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import onnx

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.formats.trt_metadata import (
    INFERRED_BATCH_KEY,
    PROFILES_KEY,
    TRT_PRECISION_KEY,
    Dim,
    OptimizationProfile,
    ProfileError,
    batch_profile,
    decode_batch_strict,
    decode_profiles_strict,
    is_dynamic,
    single_leading_wildcard,
    validate_precision,
    validate_profile,
)

T = TypeVar("T")


@dataclass(frozen=True)
class ModelTrtAttributes:
    inputs: dict[str, list[Dim | None]]  # top-level inputs (initializers excluded) and their dimensions
    profiles: dict[str, OptimizationProfile] = field(default_factory=dict)
    inferred_batch: int | None = None
    precisions: dict[str, str] = field(default_factory=dict)  # ONNX node name -> precision, graph order
    # Precisions stored on nodes the build cannot name (inside local functions or subgraphs: the designer refuses
    # them now; a file edited before or elsewhere may hold some): "<where>/<node>", said in the plan's notes.
    unreachable_precisions: list[str] = field(default_factory=list)


def _dims(value: onnx.ValueInfoProto) -> list[Dim | None]:
    if not value.type.HasField("tensor_type") or not value.type.tensor_type.HasField("shape"):
        return []
    out: list[Dim | None] = []
    for dim in value.type.tensor_type.shape.dim:
        if dim.HasField("dim_value"):
            out.append(dim.dim_value)
        else:
            out.append(dim.dim_param or None)
    return out


def read_model_attributes(path: str) -> ModelTrtAttributes:
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as error:
        raise SpecError(f"model: {path} is not a readable ONNX model ({error})") from error
    graph = model.graph
    initializers = {init.name for init in graph.initializer}
    inputs = {value.name: _dims(value) for value in graph.input if value.name not in initializers}
    props = {prop.key: prop.value for prop in model.metadata_props}
    precisions: dict[str, str] = {}
    for node in graph.node:
        value = next((p.value for p in node.metadata_props if p.key == TRT_PRECISION_KEY), None)
        if value and node.name:
            precisions[node.name] = _checked(f"the layer precision of node {node.name!r}", _precision, value)
    unreachable = [f"{where}/{node.name or node.op_type}" for where, node in _inner_nodes(model)
                   if any(p.key == TRT_PRECISION_KEY and p.value for p in node.metadata_props)]
    return ModelTrtAttributes(
        inputs=inputs,
        unreachable_precisions=unreachable,
        profiles=_profiles(props.get(PROFILES_KEY), inputs),
        inferred_batch=_checked("the inferred batch size", decode_batch_strict, props.get(INFERRED_BATCH_KEY)),
        precisions=precisions,
    )


def _inner_nodes(model: onnx.ModelProto) -> list[tuple[str, onnx.NodeProto]]:
    """Nodes of the model's local functions and of every subgraph (Loop/Scan bodies, If branches), with where."""
    found: list[tuple[str, onnx.NodeProto]] = []

    def subgraphs(nodes: Any, where: str) -> None:
        for node in nodes:
            for attr in node.attribute:
                for index, graph in enumerate([attr.g] if attr.HasField("g") else list(attr.graphs)):
                    inner = f"{where}{node.name or node.op_type}.{attr.name}{'' if attr.HasField('g') else index}"
                    found.extend((inner, n) for n in graph.node)
                    subgraphs(graph.node, inner + "/")

    subgraphs(model.graph.node, "")
    for function in model.functions:
        found.extend((f"function {function.name}", n) for n in function.node)
        subgraphs(function.node, f"function {function.name}/")
    return found


def _checked(what: str, check: Callable[[Any], T], value: Any) -> T:
    """`check(value)` with the dialogs' rules; a stored value they would refuse is bad input, named."""
    try:
        return check(value)
    except ProfileError as error:
        raise SpecError(
            f"model: {what} stored in the model is refused: {error.why} Fix: {error.fix} (The model was edited "
            "outside the designer; set it again in the designer or with the Document API.)"
        ) from error


def _profiles(text: str | None, inputs: dict[str, list[Dim | None]]) -> dict[str, OptimizationProfile]:
    """The stored profiles, each checked against its input as `Document.set_optimization_profile` checks it."""
    stored = _checked("the optimization profiles", decode_profiles_strict, text)
    out: dict[str, OptimizationProfile] = {}
    for name, (low, mid, high) in stored.items():
        if name not in inputs:
            known = ", ".join(repr(n) for n in inputs) or "none"
            raise SpecError(
                f"model: a stored optimization profile names the input {name!r}, which the model does not have "
                f"(its inputs: {known}). Fix: clear that profile or set it on an input of the model."
            )

        def check(shapes: tuple[object, object, object], name: str = name) -> OptimizationProfile:
            return validate_profile(name, inputs[name], *shapes)

        out[name] = _checked(f"the optimization profile of input {name!r}", check, (low, mid, high))
    return out


def _precision(value: str) -> str:
    return validate_precision(value) or value  # a stored value is never empty (No Constraint removes the key)


def build_shapes(attrs: ModelTrtAttributes, batch_size: int | None) -> dict[str, OptimizationProfile]:
    """The profile of every dynamic input: its stored profile, else the inferred batch (`batch_size` from the
    settings wins over the model's); SpecError naming the inputs that have neither."""
    batch = batch_size if batch_size is not None else attrs.inferred_batch
    leads = {dims[0] if dims and not is_dynamic(dims[0]) else None for dims in attrs.inputs.values()}
    takes = any(map(single_leading_wildcard, attrs.inputs.values()))
    if batch_size is not None and not takes and leads != {batch_size}:
        listed = "; ".join(f"{n}: {['?' if is_dynamic(d) else d for d in dims]}" for n, dims in attrs.inputs.items())
        raise SpecError(  # ONNX Runtime's rule (onnxruntime.inputs.batch_problem): refused, never another batch
            f"batch {batch_size}: no input of the model has a single leading wildcard to take it ({listed}); the "
            f"engine would run its own batch, not {batch_size}. Export the model with a dynamic leading (batch) "
            "dimension as its only free one, or leave the batch size out."
        )
    shapes: dict[str, OptimizationProfile] = {}
    missing: list[str] = []
    for name, dims in attrs.inputs.items():
        if not any(is_dynamic(d) for d in dims):
            continue
        if name in attrs.profiles:
            shapes[name] = attrs.profiles[name]
        elif batch is not None and single_leading_wildcard(dims):
            shapes[name] = batch_profile(dims, batch)
        else:
            missing.append(f"{name} {['?' if d is None else d for d in dims]}")
    if missing:
        raise SpecError(
            f"model: TensorRT needs an optimization profile for every dynamic input; none for {', '.join(missing)}. "
            'Set one (Document.set_optimization_profile, "Set TensorRT Optimization Profile..."), or an inferred '
            "batch size (--batch-size) for inputs with a single leading wildcard."
        )
    return shapes
