"""Canvas intents of the TensorRT attributes a model carries (seed 000 "Dynamic Shapes and TensorRT", "Specifying
Layer Precisions to TensorRT"): what the optimization-profile and layer-precision dialogs read and write.

The dialogs live in the browser (js/src/widgets/canvas/overlays/tensorrt/) and open from the canvas menu, the
precision badge's quick menu and, through the kernel, the layer explorer's menu. They only send data here; the
Document validates (a refused profile comes back as the reply's error, shown inside the dialog) and every write is
one undo step stored in the model. Self-contained (no import of intents.py, which registers these) so that the two
modules form no import circle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.ids import kind_of
from dld_jupyter.document.tensorrt.trt_edits import input_dims
from dld_jupyter.formats.trt_metadata import LAYER_PRECISIONS, is_dynamic, single_leading_wildcard

Reply = dict[str, object] | None
PROFILE_MODES = ("profile", "inferred", "clear")


class TrtCanvas(Protocol):
    @property
    def document(self) -> Document: ...


def _refuse(action: str, why: str) -> DocumentError:
    return DocumentError(f"Intent {action}", why, "This is a view bug.")


def _string_list(args: dict[str, Any], key: str, action: str) -> list[str]:
    value = args.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _refuse(action, f"argument {key!r} must be a list of ids.")
    return value


def layer_ids(document: Document, node_ids: list[str]) -> list[str]:
    """The op nodes among `node_ids`: graph inputs/outputs and group boxes carry no layer precision."""
    return [n for n in node_ids if kind_of(n) != "group" and document.ir_node(n) is not None]


def set_precision(c: TrtCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    """Constrain (precision: "fp16"...) or release (precision: null) the layers among the selection: one step."""
    precision = a.get("precision")
    if precision is not None and not isinstance(precision, str):
        raise _refuse("set_precision", f"argument 'precision' must be a string or null, got {precision!r}.")
    nodes = layer_ids(c.document, _string_list(a, "nodes", "set_precision"))
    if not nodes:
        raise DocumentError("Set layer precision", "the selection holds no layer (graph inputs, outputs and groups"
                            " have no TensorRT precision).", "Select operator nodes.")
    changed = c.document.trt.set_layer_precision(nodes, precision)
    return {"changed": changed, "layers": len(nodes)}


def _dims_json(dims: list[Any]) -> list[int | str | None]:
    return [d if isinstance(d, int) or d is None else str(d) for d in dims]


def trt_inputs(c: TrtCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    """What the optimization-profile dialog shows: the top-level inputs (dims, dynamic or not, their stored
    profile), the Inferred Batch Size, and which input the dialog was opened on (a canvas input node's id)."""
    document = c.document
    graph = document.model.graph
    profiles = document.trt.optimization_profiles()
    inputs = []
    for value in graph.inputs:
        if value.name in graph.initializers:
            continue
        dims = input_dims(value)
        profile = profiles.get(value.name or "")
        inputs.append({
            "name": value.name,
            "dims": _dims_json(dims),
            "dynamic": any(is_dynamic(d) for d in dims) or not dims,
            "single_leading": single_leading_wildcard(dims),
            "profile": profile.to_json() if profile is not None else None,
        })
    chosen = None
    node = a.get("node")
    if isinstance(node, str) and node:
        view = document.node(node)
        if view.kind != "input":
            raise DocumentError("Set TensorRT optimization profile", f"{view.name or node!r} is not a graph input.",
                                "Right-click a graph input (a diamond at the top of the graph).")
        chosen = view.name
    return {"inputs": inputs, "input": chosen, "inferred_batch": document.trt.inferred_batch_size(),
            "precisions": list(LAYER_PRECISIONS)}


def set_trt_profile(c: TrtCanvas, a: dict[str, Any], _b: list[bytes]) -> Reply:
    """mode "profile": store min/opt/max; "inferred": use the Inferred Batch Size for this input (its own profile,
    if any, is dropped: an explicit profile wins over the inferred batch); "clear": drop its profile."""
    document = c.document
    name, mode = a.get("input"), a.get("mode", "profile")
    if not isinstance(name, str) or mode not in PROFILE_MODES:
        raise _refuse("set_trt_profile", f"needs an input name and a mode of {PROFILE_MODES}, got {name!r}, {mode!r}.")
    if mode == "profile":
        profile = document.trt.set_optimization_profile(name, a.get("min"), a.get("opt"), a.get("max"))
        return {"profile": profile.to_json()}
    if mode == "clear":
        document.trt.clear_optimization_profile(name)
        return None
    batch = a.get("batch")
    dims = next((input_dims(v) for v in document.model.graph.inputs if v.name == name), None)
    if dims is None or not single_leading_wildcard(dims):
        raise DocumentError(f"Use the inferred batch size for {name!r}",
                            f"its shape {_dims_json(dims or [])} has not exactly one wildcard, the leading one.",
                            "Give it an explicit optimization profile (min / opt / max) instead.")
    if batch is None:
        raise DocumentError(f"Use the inferred batch size for {name!r}", "no batch size was given.",
                            "Type a whole number of 1 or more, e.g. 1 or 8.")
    with document.transaction(f"Use inferred batch size {batch} for {name}"):
        document.trt.set_inferred_batch_size(batch)  # validated there: a refused size names itself
        if name in document.trt.optimization_profiles():
            document.trt.clear_optimization_profile(name)
    return {"inferred_batch": document.trt.inferred_batch_size()}


TRT_HANDLERS: dict[str, Callable[[TrtCanvas, dict[str, Any], list[bytes]], Reply]] = {
    "set_precision": set_precision, "trt_inputs": trt_inputs, "set_trt_profile": set_trt_profile,
}
