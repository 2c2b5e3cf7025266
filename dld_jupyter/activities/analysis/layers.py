"""Analysis layers (seed 001 §4 "Analysis layers", issue 37): nodes that exist only in the analysis copy of a model,
never in the user's document or file, with runtime options tweaked live while analysing.

Why plain ONNX: each layer is a few standard nodes appended to the analysis copy (after the model's own nodes, so
the model's node indices, and the designer's ids, stay what they were), and each numeric option is a scalar
initializer those nodes read, so changing it is an initializer override of the running analysis (the engine
reruns from what reads it) and needs no new worker. Kinds, the palette's "Analysis" category:
- Mix (a, b): blends two same-shape tensors with `factor` and a blend function (linear: (1-f)·a + f·b; add: a + f·b;
  multiply: a·(1 - f + f·b); difference: a + f·(|a - b| - a)); its output is a new model output.
- Affine (x): x·scale + shift, fed to x's consumers in x's place (an injection), and a new model output.
- Noise (x): x + amplitude·N(0, 1) from `seed` (numpy, so every rerun sees the same noise), injected likewise.
- Snapshot (x): a value kept as it was when taken, for side-by-side viewing (the front door keeps it; no node).
The blend function is structural: changing it builds the copy again (frontdoor/analysis_layers.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from dld_jupyter.activities.errors import SpecError

Array = np.ndarray[Any, Any]
CATEGORY = "Analysis"  # the palette category these kinds are listed under
PALETTE_DOMAIN = "dld.analysis"  # their palette entries' domain: a drop or double-click inserts a layer, no node
BLENDS = ("linear", "add", "multiply", "difference")


@dataclass(frozen=True)
class Option:
    """A runtime option: its default and the slider's range."""

    default: float
    low: float
    high: float
    step: float


KINDS: dict[str, tuple[int, dict[str, Option]]] = {  # kind: (inputs, numeric options)
    "Mix": (2, {"factor": Option(0.5, 0.0, 1.0, 0.01)}),
    "Affine": (1, {"scale": Option(1.0, -4.0, 4.0, 0.01), "shift": Option(0.0, -4.0, 4.0, 0.01)}),
    "Noise": (1, {"amplitude": Option(0.1, 0.0, 2.0, 0.01), "seed": Option(0, 0, 1000, 1)}),
    "Snapshot": (1, {}),
}
SUMMARIES = {  # the palette's hover text
    "Mix": "blends two same-shape values (factor, blend: linear, add, multiply, difference); drop on a node with "
           "a second node selected",
    "Affine": "x·scale + shift, fed to the node's readers in place of its output",
    "Noise": "x + amplitude·N(0, 1) from a seed (the same every rerun), fed to the node's readers",
    "Snapshot": "keeps the node's output as it is now, shown beside the Analysis Output",
}


@dataclass
class AnalysisLayer:
    """One analysis layer: `name` (its output value and its last node's name), the values it reads, its options
    (numbers, and "blend" for a Mix) and the shape and dtype of what it reads."""

    kind: str
    name: str
    inputs: tuple[str, ...]
    shape: tuple[int, ...]
    dtype: str
    options: dict[str, Any] = field(default_factory=dict)

    def initializer(self, option: str) -> str:
        return f"{self.name}/{option}"

    def option_tensor(self, option: str, value: Any) -> Array:
        """What the initializer of `option` holds for `value` (Noise's seed: the noise itself)."""
        if self.kind == "Noise" and option == "seed":
            rng = np.random.default_rng(int(value))
            return rng.standard_normal(self.shape).astype(self.dtype)
        return np.asarray(float(value), dtype=self.dtype)


def new_layer(kind: str, name: str, inputs: Sequence[str], shapes: Sequence[tuple[tuple[int, ...], str]],
              options: Mapping[str, Any]) -> AnalysisLayer:
    """A layer checked against its kind: the number of inputs, same shapes for a Mix, known options and blends."""
    if kind not in KINDS:
        raise SpecError(f"analysis layer: {kind!r} is not one of {sorted(KINDS)} (the palette's Analysis category)")
    count, known = KINDS[kind]
    if len(inputs) != count:
        raise SpecError(f"{kind} reads {count} value(s), got {len(inputs)}: {list(inputs)}")
    if kind == "Mix" and shapes[0] != shapes[1]:
        raise SpecError(f"Mix blends two tensors of the same shape: {inputs[0]!r} is {list(shapes[0][0])} "
                        f"{shapes[0][1]}, {inputs[1]!r} is {list(shapes[1][0])} {shapes[1][1]}")
    if not np.issubdtype(np.dtype(shapes[0][1]), np.floating):
        raise SpecError(f"{kind} works on floating-point tensors; {inputs[0]!r} is {shapes[0][1]}")
    allowed = {*known, *(("blend",) if kind == "Mix" else ())}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise SpecError(f"{kind} has no option {unknown}; its options are {sorted(allowed)}")
    values: dict[str, Any] = {k: o.default for k, o in known.items()}
    values.update(options)
    if kind == "Mix":
        values.setdefault("blend", "linear")
        if values["blend"] not in BLENDS:
            raise SpecError(f"Mix blend: {values['blend']!r} is not one of {list(BLENDS)}")
    return AnalysisLayer(kind, name, tuple(inputs), shapes[0][0], shapes[0][1], values)


def with_layers(model: onnx.ModelProto, layers: Sequence[AnalysisLayer]) -> onnx.ModelProto:
    """A copy of `model` with `layers` appended (Snapshots add nothing); the option initializers hold their values."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    own = len(graph.node)
    for layer in layers:
        if layer.kind == "Snapshot":
            continue
        nodes = _nodes(layer)
        if layer.kind in ("Affine", "Noise"):  # injected: the model's own readers of x read the layer's output
            for node in graph.node[:own]:
                for i, name in enumerate(node.input):
                    if name == layer.inputs[0]:
                        node.input[i] = layer.name
        graph.node.extend(nodes)
        for option in KINDS[layer.kind][1]:
            tensor = layer.option_tensor(option, layer.options[option])
            graph.initializer.append(numpy_helper.from_array(tensor, layer.initializer(option)))
        kind = helper.np_dtype_to_tensor_dtype(np.dtype(layer.dtype))
        graph.output.append(helper.make_tensor_value_info(layer.name, kind, list(layer.shape)))
    return copy


def option_reader(layer: AnalysisLayer, option: str) -> str:
    """The node (by name) that reads `option`'s initializer: the one an override of it names."""
    initializer = layer.initializer(option)
    return next(n.name for n in _nodes(layer) if initializer in n.input)


def _nodes(layer: AnalysisLayer) -> list[onnx.NodeProto]:
    name, nodes = layer.name, list[onnx.NodeProto]()

    def op(op_type: str, inputs: list[str], out: str | None = None) -> str:
        result = out or f"{name}/{op_type}_{len(nodes)}_out"
        node_name = name if out == name else f"{name}/{op_type}_{len(nodes)}"
        nodes.append(helper.make_node(op_type, inputs, [result], name=node_name))
        return result

    if layer.kind == "Mix":
        a, b = layer.inputs
        f = layer.initializer("factor")
        blend = layer.options["blend"]
        if blend == "linear":
            op("Add", [a, op("Mul", [op("Sub", [b, a]), f])], name)
        elif blend == "add":
            op("Add", [a, op("Mul", [b, f])], name)
        elif blend == "multiply":
            scaled = op("Sub", [op("Mul", [b, f]), f])  # f·b - f
            op("Add", [a, op("Mul", [a, scaled])], name)  # a + a·(f·b - f)
        else:  # difference
            apart = op("Sub", [op("Abs", [op("Sub", [a, b])]), a])
            op("Add", [a, op("Mul", [apart, f])], name)
    elif layer.kind == "Affine":
        x = layer.inputs[0]
        op("Add", [op("Mul", [x, layer.initializer("scale")]), layer.initializer("shift")], name)
    elif layer.kind == "Noise":
        x = layer.inputs[0]
        noise = op("Mul", [layer.initializer("seed"), layer.initializer("amplitude")])
        op("Add", [x, noise], name)
    return nodes
