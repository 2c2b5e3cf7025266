"""Apply a model rewritten elsewhere (Polygraphy works on a protobuf copy) to the document as ONE undo step.

The edit swaps the whole model through the document's `ReplaceModel` command; canvas positions follow the nodes by
name (the keys `dld.positions` uses when saving), so nodes the rewrite kept stay where the user put them and new
ones (inserted Casts) get none until the next layout. Undo swaps the original model objects back, ids included.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import onnx
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits.commands import Context
from dld_jupyter.document.edits.model_commands import ReplaceModel
from dld_jupyter.document.files import io as document_io
from dld_jupyter.document.layout.metadata import POSITIONS_KEY, decode_positions, encode_positions
from dld_jupyter.transforms.model_source import open_document
from dld_jupyter.transforms.transform import Do, EditPlan, FilePlan, Plan, Transform

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")  # a result dataclass with an `output` field (Fp16Result, SanitizeResult)


def replace_model_edit(proto: onnx.ModelProto) -> Callable[[Context, Do], None]:
    """An edit (for `EditPlan`) that replaces the document's model with `proto`."""
    model = ir.from_proto(proto)

    def edit(ctx: Context, do: Do) -> None:
        text = encode_positions(ctx.graph, ctx.ids, ctx.positions)
        if text:
            model.metadata_props[POSITIONS_KEY] = text
        else:
            model.metadata_props.pop(POSITIONS_KEY, None)
        positions = decode_positions(model, ctx.ids)
        do(ReplaceModel(model, tuple(positions.items())))

    return edit


def node_count(proto: onnx.ModelProto) -> int:
    """Nodes of the main graph (what the canvas shows)."""
    return len(proto.graph.node)


def rewritten_model_plan(label: str, proto: onnx.ModelProto, result: R, path: str | os.PathLike[str] | None) -> Plan[R]:
    """The plan of a transform that rewrote the whole model: written to `path` (atomic save; the result then names
    the file in its `output`), or, with no path, swapped into the document as ONE undo step."""
    if path:
        target = pathlib.Path(path).resolve()

        def write() -> R:
            document_io.save(ir.from_proto(proto), target, {})
            return dataclasses.replace(result, output=target)

        return FilePlan(f"{label} to {target.name}", write)
    edit = replace_model_edit(proto)

    def apply(ctx: Context, do: Do) -> R:
        edit(ctx, do)
        return result

    return EditPlan(label, apply)


def rewrite(
    transform: Transform, model: Document | str | os.PathLike[str], output: str | os.PathLike[str] | None,
    example: str, **args: Any
) -> Any:
    """The function form of a whole-model rewrite (`convert_to_fp16`, `sanitize`): `model` (a Document or a file)
    rewritten into the file `output`, or, without one, the Document edited as one undo step (a path without `output`
    is refused: it would edit nothing; `example` is the output name the message suggests). The transform's result."""
    if output is None and not isinstance(model, Document):
        raise DocumentError(transform.label, "no output file is given.", f"Pass output={example!r}.")
    doc = open_document(model)
    return transform.plan(doc, path=None if output is None else str(output), **args).execute(doc)
