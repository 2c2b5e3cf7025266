"""What an `Analysis` gains for analysis layers (seed 001 §4, issue 37): `a.add_layer("Mix", input, output,
factor=0.3)`, `a.set_option(layer, "factor", 0.7)`, `a.remove_layer(layer)` / `a.undo_layer()`, `a.snapshot(value)`.

Why here: the layers live in the analysis copy only (activities/analysis/layers.py builds it), never in the document
or the user's file, so the handle that owns the worker also owns them. Adding or removing one (or changing a Mix's
blend function, which is structural) writes the copy again and restarts the worker on it, keeping the breakpoints
and the overrides, and leaves the run at the end (every value available, the new outputs shown); a numeric option
(factor, scale, shift, amplitude, seed) is an initializer override of the running worker, so a slider reruns only
what reads it. Undo is `undo_layer()`, the last added goes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from dld_jupyter.activities.analysis.actions import AnalysisAction
from dld_jupyter.activities.analysis.layers import KINDS, AnalysisLayer, new_layer, option_reader, with_layers
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.analysis import OrtAnalysisSpec, encode_array

if TYPE_CHECKING:
    from dld_jupyter.activities.run import Run

Array = np.ndarray[Any, Any]


class LayerActions:
    """Mixed into `frontdoor.analysis.Analysis`; see the module docstring."""

    _layers: list[AnalysisLayer]
    _built: dict[tuple[str, str], Any]  # each option's value as written into the copy
    snapshots: dict[str, Array]
    source_model: str
    _folder: Path
    _values: dict[tuple[str, str], Any]
    _inside: dict[str, tuple[str, tuple[str, ...]]]
    activity: Run
    live: bool

    if TYPE_CHECKING:

        def _ask(self, action: AnalysisAction, timeout: float = ..., **args: Any) -> dict[str, Any]: ...
        def _start(self, spec: OrtAnalysisSpec) -> None: ...
        def _end_worker(self) -> None: ...
        def outputs(self, finish: bool = True) -> dict[str, Array]: ...
        def summary(self, node_or_value: str | int) -> dict[str, Any]: ...
        def tensor(self, node_or_value: str | int) -> Array: ...
        def add_breakpoint(self, node: str | int) -> None: ...
        def override(self, node: str | int, name: str, value: Any, inside: tuple[str, ...] = ()) -> None: ...
        @property
        def breakpoints(self) -> list[str]: ...

    @property
    def analysis_layers(self) -> list[AnalysisLayer]:
        """The analysis layers in the copy, oldest first (their options as now set)."""
        return [dataclasses.replace(layer, options=dict(layer.options)) for layer in self._layers]

    def add_layer(self, kind: str, *inputs: str, **options: Any) -> str:
        """Add an analysis layer reading `inputs` (value names: a graph input, a node's output, another layer's
        output) with `options`; returns its name, also the name of its output value (a new model output)."""
        if kind not in KINDS:
            raise SpecError(f"analysis layer: {kind!r} is not one of {sorted(KINDS)} (the palette's Analysis category)")
        self.outputs()  # every value available: the inputs' shapes are known
        shapes = []
        for name in inputs:
            found = self.summary(name)
            shapes.append((tuple(int(d) for d in found["shape"]), str(found["dtype"])))
        count = sum(1 for layer in self._layers if layer.kind == kind) + 1
        layer = new_layer(kind, f"/analysis/{kind}{count}", inputs, shapes, options)
        if kind == "Snapshot":
            self.snapshots[layer.name] = self.tensor(inputs[0]).copy()
            self._layers.append(layer)
            return layer.name
        self._layers.append(layer)
        try:
            self._rebuild()
        except BaseException:
            self._layers.remove(layer)
            if self.live:
                self._rebuild()
            raise
        return layer.name

    def set_option(self, layer: str, option: str, value: Any) -> None:
        """Change a runtime option of an analysis layer: a number reruns from the node that reads it; a Mix's
        `blend` builds the copy again."""
        found = self._layer(layer)
        known = KINDS[found.kind][1]
        if option == "blend" and found.kind == "Mix":
            previous = found.options["blend"]
            new_layer(found.kind, found.name, found.inputs, [(found.shape, found.dtype)] * 2, {"blend": value})
            found.options["blend"] = value
            try:
                self._rebuild()
            except BaseException:
                found.options["blend"] = previous
                raise
            return
        if option not in known:
            raise SpecError(f"{found.kind} {layer!r} has no option {option!r}; its options are {sorted(known)}")
        tensor = found.option_tensor(option, value)
        self._ask(AnalysisAction.OVERRIDE, node=option_reader(found, option), name=found.initializer(option),
                  value={"npy": encode_array(tensor)})
        found.options[option] = value

    def remove_layer(self, layer: str) -> None:
        """Take an analysis layer out of the copy (a Snapshot: forget its value)."""
        found = self._layer(layer)
        self._layers.remove(found)
        if found.kind == "Snapshot":
            self.snapshots.pop(found.name, None)
            return
        self._rebuild()

    def undo_layer(self) -> str | None:
        """Undo the last `add_layer`; returns the name removed (None: there was none)."""
        if not self._layers:
            return None
        name = self._layers[-1].name
        self.remove_layer(name)
        return name

    def snapshot(self, value: str) -> str:
        """Keep `value` as it is now, for side-by-side viewing (`a.snapshots[name]`); a Snapshot layer."""
        return self.add_layer("Snapshot", value)

    def _option_initializers(self) -> set[str]:
        return {layer.initializer(o) for layer in self._layers for o in KINDS[layer.kind][1]}

    def _reapply_options(self) -> None:
        """Every numeric option whose value differs from the one built into the copy, set again (after revert_all)."""
        for layer in self._layers:
            for option, value in layer.options.items():
                if option in KINDS[layer.kind][1] and value != self._built.get((layer.name, option), value):
                    self._ask(AnalysisAction.OVERRIDE, node=option_reader(layer, option),
                              name=layer.initializer(option),
                              value={"npy": encode_array(layer.option_tensor(option, value))})

    def _layer(self, name: str) -> AnalysisLayer:
        found = next((layer for layer in self._layers if layer.name == name), None)
        if found is None:
            raise SpecError(f"{name!r} is no analysis layer; they are {[layer.name for layer in self._layers]}")
        return found

    def _layer_nodes(self) -> int:
        """Nodes the analysis layers appended to the copy (its model's own nodes come first)."""
        model = onnx.ModelProto()
        return len(with_layers(model, self._layers).graph.node)

    def _rebuild(self) -> None:
        """The analysis copy written again with the layers, a worker on it; breakpoints and overrides kept."""
        breakpoints, overrides = self.breakpoints, dict(self._values)
        spec = self.activity.spec
        assert isinstance(spec, OrtAnalysisSpec)
        model = onnx.load(self.source_model)
        copy = with_layers(model, self._layers)
        self._built = {(layer.name, o): v for layer in self._layers for o, v in layer.options.items()}
        path = self._folder / "analysis.onnx"
        onnx.save(copy, str(path), save_as_external_data=copy.ByteSize() > (1 << 30), location="analysis.weights")
        self._end_worker()
        self._start(dataclasses.replace(spec, model=str(path)))
        for name in breakpoints:
            if name in getattr(self, "keys", []):
                self.add_breakpoint(name)
        for (key, member), value in overrides.items():
            node, inside = self._inside.get(key, (key, ()))
            self.override(node, member, value, inside)
        self.outputs()
