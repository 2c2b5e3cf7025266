"""Checks of a prebuilt engine before it is profiled for a model (seed 000 "Use prebuilt engine"), and its refit.

An engine file records neither the model it came from nor a hash of it, but its layer information does name what
it was parsed from: the network's I/O tensors are the ONNX graph's inputs and outputs (the parser keeps their
names) and fused layer names carry their ONNX source nodes. A prebuilt engine is refused when its I/O names differ
from the model's or none of its layers names a node of the model (another model's engine: its report would map
no layer), and when a static input shape of the engine differs from the shape the run would feed (the model's
optimization profile opt, or its static dims): TensorRT would reject the bindings mid-run or, worse, the report
would describe another shape. A refittable engine is then refitted from the model's weights (the seed: refit when
possible), so a model whose weights changed since the build is measured as it is now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import onnx

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.report_format.trt_names import parse_layer_name

Shape = tuple[int, ...]


def engine_io(info: Mapping[str, Any]) -> tuple[list[str], dict[str, list[int]]]:
    """(binding names, the dims the layer information gives each binding where a layer reads or writes it)."""
    bindings = [str(name) for name in info.get("Bindings", [])]
    dims: dict[str, list[int]] = {}
    for layer in info.get("Layers", []):
        if not isinstance(layer, Mapping):
            continue
        for tensor in (*layer.get("Inputs", []), *layer.get("Outputs", [])):
            name = tensor.get("Name") if isinstance(tensor, Mapping) else None
            if name in bindings and name not in dims and isinstance(tensor.get("Dimensions"), list):
                dims[name] = [int(d) for d in tensor["Dimensions"]]
    return bindings, dims


def _model_io(model: onnx.ModelProto) -> tuple[list[str], list[str]]:
    weights = {init.name for init in model.graph.initializer}
    return [v.name for v in model.graph.input if v.name not in weights], [v.name for v in model.graph.output]


def provenance_problem(info: Mapping[str, Any], model: onnx.ModelProto, engine: str) -> str | None:
    """Why the engine's layer information says it was not built from `model`, or None."""
    bindings, _dims = engine_io(info)
    inputs, outputs = _model_io(model)
    if bindings and sorted(bindings) != sorted(inputs + outputs):
        return (
            f"the prebuilt engine {engine} was not built from this model: its inputs and outputs are "
            f"{sorted(bindings)}, the model's are {sorted(inputs + outputs)}. Choose the engine built from this "
            "model, or clear 'Use prebuilt engine' to build one."
        )
    nodes = {node.name for node in model.graph.node}
    sources = {s for layer in info.get("Layers", []) if isinstance(layer, Mapping)
               for s in parse_layer_name(str(layer.get("Name", ""))).sources}
    if sources and nodes and not sources & nodes:
        return (
            f"the prebuilt engine {engine} was not built from this model: none of its {len(sources)} layer sources "
            "names a node of the model. Choose the engine built from this model, or clear 'Use prebuilt engine'."
        )
    return None


def shape_problem(info: Mapping[str, Any], feeds: Mapping[str, Sequence[int | None]], engine: str) -> str | None:
    """Why the shapes the run would feed (`feeds`: input name -> dims, None where the model leaves them free)
    do not fit the engine's static input shapes, or None (a -1 in the engine is dynamic: TensorRT checks it
    against its profile when the bindings are set)."""
    _bindings, dims = engine_io(info)
    wrong = []
    for name, fed in feeds.items():
        built = dims.get(name)
        if built is None:
            continue
        fits = len(built) == len(fed) and all(b < 0 or f is None or b == f for b, f in zip(built, fed, strict=False))
        if not fits:
            shown = ["?" if f is None else f for f in fed]
            wrong.append(f"{name}: the engine takes {built}, the run would feed {shown}")
    if not wrong:
        return None
    return (
        f"the prebuilt engine {engine} was built for other input shapes ({'; '.join(wrong)}). Set the model's "
        "optimization profile (opt) to the engine's shapes, or clear 'Use prebuilt engine' to build one."
    )


def fed_shapes(model: onnx.ModelProto, profiles: Mapping[str, Shape]) -> dict[str, list[int | None]]:
    """The shapes a run feeds each model input: the profile's opt, else the input's dims (None where free)."""
    weights = {init.name for init in model.graph.initializer}
    fed: dict[str, list[int | None]] = {}
    for value in model.graph.input:
        if value.name in weights:
            continue
        if value.name in profiles:
            fed[value.name] = list(profiles[value.name])
        else:
            fed[value.name] = [d.dim_value if d.HasField("dim_value") else None
                               for d in value.type.tensor_type.shape.dim]
    return fed


def check_prebuilt(
    info: Mapping[str, Any], model_path: str, profiles: Callable[[], Mapping[str, Shape]], engine: str
) -> None:
    """SpecError when the engine is another model's or takes other shapes (see the module docstring); `profiles`
    (the opt shapes of the run, which may refuse the model) is asked only once the engine is the model's."""
    model = onnx.load(model_path, load_external_data=False)
    problem = provenance_problem(info, model, engine)
    if problem is None:
        problem = shape_problem(info, fed_shapes(model, profiles()), engine)
    if problem is not None:
        raise SpecError(problem)
