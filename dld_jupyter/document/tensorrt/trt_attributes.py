"""``doc.trt``: the document's TensorRT attributes (optimization profiles, the inferred batch size and layer precision
constraints), stored in the model's metadata (formats/trt_metadata.py) by trt_edits.py, each edit one undo step. A
collaborator the Document owns, holding a typed handle on it (it was a mixin reaching its host).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.tensorrt import trt_edits as trt
from dld_jupyter.formats.trt_metadata import TRT_PRECISION_KEY, OptimizationProfile

if TYPE_CHECKING:
    from dld_jupyter.document.model.document_handle import DocumentHandle


class TensorRtAttributes:
    """What the TensorRT export reads from the model besides the graph (seed 000: Dynamic Shapes and TensorRT).

    The build reads them from the main model only (its metadata and its main graph's nodes): in a subgraph or
    local-function document they are refused, since a confirm writes back the part and nothing else (a profile set
    on a Loop-body input was accepted there, then dropped; a precision inside a function was saved, then ignored)."""

    def __init__(self, document: DocumentHandle) -> None:
        self._doc = document

    def _main_model_only(self, what: str) -> None:
        if self._doc.parent is None:
            return
        kind = self._doc.kind
        if kind == "function":
            why = ("TensorRT inlines a local function at each of its calls, under layer names of its own, so the "
                   "build finds no layer by the names of the function's nodes.")
            fix = "Inline the function (Inline Function) in the main model, then set it on the inlined nodes."
        else:
            why = (f"the TensorRT build reads profiles, the inferred batch and layer precisions from the main model "
                   f"only; this {kind or 'part'} document writes back its graph and nothing else.")
            fix = "Set it in the main model's document (on its inputs and its main graph's nodes)."
        raise DocumentError(what, why, fix)

    def set_optimization_profile(self, input_name: str, min: Any, opt: Any, max: Any) -> OptimizationProfile:
        """Min/opt/max shapes of a dynamic top-level input, stored in the model (one undo step)."""
        self._main_model_only(f"Set TensorRT optimization profile of {input_name!r}")
        return self._doc.edit(
            f"Set optimization profile of {input_name}",
            lambda ctx, do: trt.set_optimization_profile(ctx, do, input_name, min, opt, max),
        )

    def clear_optimization_profile(self, input_name: str) -> None:
        self._doc.edit(
            f"Clear optimization profile of {input_name}",
            lambda ctx, do: trt.clear_optimization_profile(ctx, do, input_name),
        )

    def optimization_profiles(self) -> dict[str, OptimizationProfile]:
        """Optimization profiles by input name, as stored in the model."""
        return self._doc.query(trt.profiles)

    def set_inferred_batch_size(self, batch: int | None) -> None:
        """The Inferred Batch Size for inputs with a single leading wildcard (None: no inferred batch)."""
        self._main_model_only("Set TensorRT inferred batch size")
        self._doc.edit("Set inferred batch size", lambda ctx, do: trt.set_inferred_batch_size(ctx, do, batch))

    def inferred_batch_size(self) -> int | None:
        return self._doc.query(trt.inferred_batch_size)

    def set_layer_precision(self, node_ids: Iterable[str], precision: str | None) -> int:
        """Constrain TensorRT layer precision of op nodes (None: No Constraint) as one undo step; returns the
        number of nodes changed."""
        ids = list(node_ids)
        if precision is not None:  # releasing a constraint stays possible wherever one was left
            self._main_model_only("Set layer precision")
        return self._doc.edit(
            f"Set layer precision {precision or 'No Constraint'}",
            lambda ctx, do: trt.set_layer_precision(ctx, do, ids, precision),
        )

    def layer_precision(self, node_id: str) -> str | None:
        """The TensorRT precision constraint of an op node; None when it has none."""
        node = self._doc.ir_node(node_id)
        if node is None:
            raise DocumentError("Read layer precision", f"node {node_id!r} is not in the graph.", "Refresh the view.")
        return node.metadata_props.get(TRT_PRECISION_KEY)
