"""Edits of the TensorRT attributes a model carries (format: `trt_metadata`): optimization profiles, the Inferred
Batch Size and layer precisions. Each runs inside a Document transaction, so it is one undo step; a refused edit
raises DocumentError (what / why / fix) and leaves the model unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import onnx_ir as ir

from dld_jupyter.document.edits import commands as c
from dld_jupyter.document.edits.commands import Command, Context
from dld_jupyter.document.edits.structure_edits import Do, op_node
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.formats.trt_metadata import (
    INFERRED_BATCH_KEY,
    PROFILES_KEY,
    TRT_PRECISION_KEY,
    Dim,
    OptimizationProfile,
    ProfileError,
    decode_batch,
    decode_profiles,
    encode_profiles,
    single_leading_wildcard,
    validate_batch,
    validate_precision,
    validate_profile,
)


@dataclass(frozen=True)
class SetNodeMetadata:
    """Set (``value``) or remove (None) one ``metadata_props`` entry of a node."""

    node: ir.Node
    key: str
    value: str | None

    def apply(self, ctx: Context) -> Command:
        props = self.node.metadata_props
        inverse = SetNodeMetadata(self.node, self.key, props.get(self.key))
        if self.value is None:
            props.pop(self.key, None)
        else:
            props[self.key] = self.value
        ctx.node_changed(self.node)
        return inverse


def input_dims(value: ir.Value) -> list[Dim | None]:
    """Dimensions of a graph input: ints, symbolic names, None for unknown."""
    if value.shape is None:
        return []
    return [d if isinstance(d, int) else d.value for d in value.shape]


def _graph_input(ctx: Context, name: str, what: str) -> ir.Value:
    initializers = ctx.graph.initializers
    for value in ctx.graph.inputs:
        if value.name == name and name not in initializers:
            return value
    names = [v.name for v in ctx.graph.inputs if v.name not in initializers]
    raise DocumentError(
        what,
        f"{name!r} is not an input of the top-level graph (profiles cannot apply to subgraphs or functions).",
        f"Pick one of {names}." if names else "The model has no graph inputs.",
    )


def _write_metadata(ctx: Context, do: Do, key: str, value: str | None) -> None:
    props = dict(ctx.model.metadata_props)
    if props.get(key) == value:
        return
    if value is None:
        props.pop(key, None)
    else:
        props[key] = value
    do(c.SetMetadata(tuple(props.items())))


def profiles(ctx: Context) -> dict[str, OptimizationProfile]:
    return decode_profiles(ctx.model.metadata_props.get(PROFILES_KEY))


def set_optimization_profile(
    ctx: Context, do: Do, input_name: str, min_: object, opt: object, max_: object
) -> OptimizationProfile:
    what = f"Set TensorRT optimization profile of {input_name!r}"
    value = _graph_input(ctx, input_name, what)
    try:
        profile = validate_profile(input_name, input_dims(value), min_, opt, max_)
    except ProfileError as error:
        raise DocumentError(what, error.why, error.fix) from error
    current = profiles(ctx)
    current[input_name] = profile
    _write_metadata(ctx, do, PROFILES_KEY, encode_profiles(current))
    return profile


def clear_optimization_profile(ctx: Context, do: Do, input_name: str) -> None:
    what = f"Clear TensorRT optimization profile of {input_name!r}"
    current = profiles(ctx)
    if input_name not in current:
        raise DocumentError(
            what, f"{input_name!r} has no optimization profile.", f"Profiles are set on {sorted(current)}."
        )
    del current[input_name]
    _write_metadata(ctx, do, PROFILES_KEY, encode_profiles(current))


def inferred_batch_size(ctx: Context) -> int | None:
    return decode_batch(ctx.model.metadata_props.get(INFERRED_BATCH_KEY))


def set_inferred_batch_size(ctx: Context, do: Do, batch: int | None) -> None:
    what = "Set TensorRT inferred batch size"
    if batch is not None:
        try:
            validate_batch(batch)
        except ProfileError as error:
            raise DocumentError(what, error.why, error.fix) from error
        inputs = [v for v in ctx.graph.inputs if v.name not in ctx.graph.initializers]
        if not any(single_leading_wildcard(input_dims(v)) for v in inputs):
            raise DocumentError(
                what,
                "no top-level input has a single leading wildcard dimension (like ['N', 3, 224, 224]).",
                "Set optimization profiles on the dynamic inputs instead.",
            )
    _write_metadata(ctx, do, INFERRED_BATCH_KEY, None if batch is None else str(batch))


def set_layer_precision(ctx: Context, do: Do, node_ids: Iterable[str], precision: str | None) -> int:
    """Constrain (or, with None, release) the TensorRT precision of op nodes; returns how many changed."""
    what = "Set layer precision"
    try:
        value = validate_precision(precision)
    except ProfileError as error:
        raise DocumentError(what, error.why, error.fix) from error
    nodes = [op_node(ctx, node_id, what) for node_id in dict.fromkeys(node_ids)]
    counts = Counter(node.name for node in ctx.graph if node.name)
    for node in nodes:
        if value is not None and (not node.name or counts[node.name] > 1):
            label = repr(node.name) if node.name else "an unnamed node"
            raise DocumentError(
                what,
                f"{label} ({node.op_type}) has no unique name, and TensorRT finds layers by ONNX node name.",
                "Give the node a unique name first (rename_node).",
            )
    changed = 0
    for node in nodes:
        if node.metadata_props.get(TRT_PRECISION_KEY) != value:
            do(SetNodeMetadata(node, TRT_PRECISION_KEY, value))
            changed += 1
    return changed
