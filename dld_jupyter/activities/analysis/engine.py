"""The analysis debugger (seed 001 §4.5.2): breakpoints on nodes, run / step / resume in the main graph's execution
order, every tensor computed so far inspectable, runtime overrides of attributes and initializers.

Bounded memory: the model is written once into a private folder with its weights as external data (ONNX Runtime maps
that file, so every session shares the weights: the windows engine, runtimes/onnxruntime/windows.py), and each stop
computes a window of values: the stopped node's outputs and those of up to `window - 1` next nodes, so most steps are
answered from what the last window fetched.
Stepping on, a window is a *segment* of the model cut at the stop point, fed the frontier the last window left (the
values live there, at most the largest activation set): its cost is the window's nodes, not everything before them
(ResNet-50, one value per session: median step 305 ms by prefixes on a loaded machine). A jump (run, resume, a value
dropped) runs the *prefix* (`graph.py`) of just the nodes the wanted values depend on. Only the latest window and
the values a user asked for are kept, the latter in an LRU capped at `keep_bytes`; a value computed earlier and
since dropped is computed again by its own prefix (BERT-base stepped through every node kept 256 MB of window values
when they shared the LRU). ORT runs with graph optimizations off, so every ONNX value exists and equals what a plain
run that outputs it gives. Overrides change the private graph only (never the document, never saved) and rerun the
current stop. A node "stopped at" has run: its outputs are inspectable.
"""

from __future__ import annotations

import dataclasses
import os
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import onnx
from onnx import helper, numpy_helper

from dld_jupyter.activities.analysis.graph import MainGraph
from dld_jupyter.activities.analysis.overrides import OverrideTargets, attribute_value, copy_proto, schema_attribute
from dld_jupyter.activities.errors import RunFailed, SpecError
from dld_jupyter.activities.runtimes.onnxruntime.windows import Windows

Array = np.ndarray[Any, Any]
State = Literal["idle", "paused", "finished"]


@dataclasses.dataclass(frozen=True)
class Override:
    """One analysis override: `name` is an attribute of `node` or an initializer it reads."""

    node: str
    name: str
    kind: Literal["attribute", "initializer"]
    inside: tuple[str, ...] = ()  # inside node's subgraphs: (attribute, inner node name, …); () the node itself


class AnalysisEngine:
    """One analysed model on fixed inputs; see the module docstring. Close it (or use `with`) to drop its folder."""

    def __init__(
        self,
        model: str | os.PathLike[str],
        feeds: Mapping[str, Array],
        provider: str = "CPUExecutionProvider",
        window: int = 8,
        keep_bytes: int = 64 << 20,
        threads: int = 0,
    ) -> None:
        self.window, self.keep_bytes, self.threads = max(1, window), keep_bytes, threads
        self.model_path = os.fspath(model)
        self.feeds = {name: np.asarray(value) for name, value in feeds.items()}
        self._windows = Windows(self.model_path, provider, "the analysis", threads, prefix="dld-analysis-")
        self.provider = self._windows.provider
        self._model = self._windows.model
        self.graph = MainGraph(self._model.graph)
        self.graph.attach_shell(self._model)
        self._initializers = {t.name: t for t in self._model.graph.initializer}
        self._targets = OverrideTargets(self.graph, self._initializers)
        self._originals: dict[tuple[int, str, tuple[str, ...]], onnx.AttributeProto | onnx.TensorProto] = {}
        self.breakpoints: set[int] = set()
        self.state: State = "idle"
        self.step_index = -1  # position in `graph.order` of the node stopped at
        self._values: OrderedDict[str, Array] = OrderedDict()  # asked for, least recently used first
        self._window: dict[str, Array] = {}  # the latest window's values
        self._frontier: dict[str, Array] = {}  # the values live where the latest window ended
        self._frontier_step: int | None = 0  # that step (0: the start, which needs no values)
        self._outputs: dict[str, Array] | None = None
        self.segments_run = 0  # windows computed by a segment fed the frontier (not a prefix)
        self.shapes: dict[str, list[int]] = {}  # the shape of every value computed so far (the Network Overview)

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def close(self) -> None:
        self._values.clear()
        self._window.clear()
        self._frontier.clear()
        self._windows.close()

    def __enter__(self) -> AnalysisEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def sessions_built(self) -> int:
        return self._windows.sessions_built

    @property
    def most_outputs(self) -> int:
        """The most values one session computed as outputs (never every value)."""
        return self._windows.most_outputs

    # -- where it is ---------------------------------------------------------------------------------------------
    @property
    def position(self) -> int | None:
        """The file index of the node stopped at, or None (not started, or finished)."""
        return self.graph.order[self.step_index] if self.state == "paused" else None

    def node_key(self, index: int) -> str:
        return self.graph.keys[index]

    # -- breakpoints and stepping --------------------------------------------------------------------------------
    def add_breakpoint(self, node: str | int) -> int:
        index = self._node(node)
        self.breakpoints.add(index)
        return index

    def remove_breakpoint(self, node: str | int) -> int:
        index = self._node(node)
        self.breakpoints.discard(index)
        return index

    def run(self) -> int | None:
        """From the start to the first breakpoint in execution order (its node has run), or to the end."""
        self._restart()
        return self._go(0)

    def step(self) -> int | None:
        """To the next node in execution order (the first when not started); past the last one: finished."""
        if self.state == "finished":
            self._restart()
        return self._stop_at(self.step_index + 1)

    def resume(self) -> int | None:
        """To the next breakpoint after the current stop, or to the end."""
        if self.state != "paused":
            return self.run()
        return self._go(self.step_index + 1)

    def finish(self) -> None:
        """To the end whatever the breakpoints (the outputs were asked for): every value is available afterwards."""
        self._stop_at(len(self.graph.order))

    def _restart(self) -> None:
        self.state, self.step_index = "idle", -1

    def _go(self, first: int) -> int | None:
        later = [self.graph.step_of[i] for i in self.breakpoints if self.graph.step_of[i] >= first]
        return self._stop_at(min(later) if later else len(self.graph.order))

    def _stop_at(self, step: int) -> int | None:
        if step >= len(self.graph.order):
            self.state, self.step_index = "finished", len(self.graph.order) - 1
            self.outputs()
            return None
        self.state, self.step_index = "paused", step
        index = self.graph.order[step]
        wanted = [n for n in self.graph.nodes[index].output if n]
        if not all(name in self._values or name in self._window for name in wanted):
            self._compute_window(step)
        return index

    def _compute_window(self, step: int) -> None:
        """The window of values from `step`, by a segment fed the frontier when the last window ended at `step`
        (stepping on: cost of the window alone), else by the prefix; either also gives the next frontier."""
        names = self._window_from(step)
        end = min(step + self.window, len(self.graph.order))
        following = self.graph.frontier(end)
        self._window = {}  # dropped before the next one is computed
        sequences = self._windows.sequences  # values ORT gave as lists: no segment input
        if self._frontier_step == step and not sequences & self._frontier.keys():  # tensors feed a segment
            kinds = {n: int(helper.np_dtype_to_tensor_dtype(a.dtype)) for n, a in self._frontier.items()}
            segment = self.graph.segment(range(step, end), names, kinds)
            values = {**self._frontier, **self._run(names, segment, self._frontier)}
            self.segments_run += 1
        else:
            values = self._run([*names, *(n for n in following if n not in names)])
        self._window = {n: values[n] for n in names}
        self._frontier = {n: values[n] for n in following}
        self._frontier_step = end

    def _window_from(self, step: int) -> list[str]:
        names: list[str] = []
        for index in self.graph.order[step : step + self.window]:
            names.extend(n for n in self.graph.nodes[index].output if n and n not in names)
        return names

    # -- tensors -------------------------------------------------------------------------------------------------
    def computed(self, name: str) -> bool:
        """Whether `name` (a value) has been computed by the current stop: inputs and initializers always have."""
        if name in self.feeds or name in self._initializers:
            return True
        producer = self.graph.producer.get(name)
        if producer is None:
            raise KeyError(f"{name!r} is no value of the model's main graph")
        return self.state == "finished" or (self.state == "paused" and self.graph.step_of[producer] <= self.step_index)

    def value_name(self, node_or_value: str | int) -> str:
        """A value name for a value name, or a node's first output."""
        if isinstance(node_or_value, str) and (
            node_or_value in self.graph.producer or node_or_value in self.feeds or node_or_value in self._initializers
        ):
            return node_or_value
        return str(next(n for n in self.graph.nodes[self._node(node_or_value)].output if n))

    def tensor(self, node_or_value: str | int) -> Array:
        """A value computed so far (a node: its first output); SpecError for one the run has not reached yet."""
        name = self.value_name(node_or_value)
        if name in self.feeds:
            return self.feeds[name]
        if name in self._initializers:
            return numpy_helper.to_array(self._initializers[name], str(self._windows.folder))
        if not self.computed(name):
            node = self.graph.keys[self.graph.producer[name]]
            raise SpecError(f"{name!r} is not computed yet: step or resume past node {node!r}, or run to the end "
                            "(outputs() does)")
        if name not in self._values:
            self._keep(name, self._window[name] if name in self._window else self._run([name])[name])
        self._values.move_to_end(name)
        return self._values[name]

    def outputs(self) -> dict[str, Array]:
        """The model's outputs on the inputs (with the overrides applied)."""
        if self._outputs is None:
            names = [o.name for o in self._model.graph.output]
            self._outputs = self._run(names)
        return dict(self._outputs)

    def held_bytes(self) -> int:
        """Bytes of tensors held: the latest window, its frontier and the values asked for (an array may be in
        several)."""
        held = [*self._values.values(), *self._window.values(), *self._frontier.values()]
        arrays = {id(a): a.nbytes for a in held}
        return sum(arrays.values())

    def _keep(self, name: str, value: Array) -> None:
        self._values[name] = value
        while len(self._values) > 1 and sum(a.nbytes for a in self._values.values()) > self.keep_bytes:
            self._values.popitem(last=False)

    def _run(
        self, names: Sequence[str], model: onnx.ModelProto | None = None, given: Mapping[str, Array] | None = None
    ) -> dict[str, Array]:
        """`names` computed by `model` (default: the prefix that computes them) fed the inputs and `given`."""
        graph = model or self.graph.prefix(names)
        out = self._windows.run(names, {**self.feeds, **(given or {})}, graph)
        self.shapes.update({name: list(array.shape) for name, array in out.items()})
        return out

    # -- overrides -----------------------------------------------------------------------------------------------
    def override(self, node: str | int, name: str, value: Any, inside: Sequence[str] = ()) -> Override:
        """Set attribute `name` of `node`, or the initializer `name` it reads, to `value` in this session only; the
        model's outputs and the current stop are computed again. `inside` names a node of its subgraphs instead
        (attribute, inner node name, and so on deeper): a child document's node; an attribute of it (a Constant's
        value too) or an initializer of the subgraph bodies around it that it reads."""
        index, path = self._node(node), tuple(inside)
        proto = self._targets.node(index, path)
        key = (index, name, path)
        attribute = next((a for a in proto.attribute if a.name == name), None)
        if attribute is None and (kind_of := schema_attribute(proto, name)) is not None:
            attribute = proto.attribute.add(name=name, type=kind_of)  # a default made explicit; revert removes it
            self._originals.setdefault(key, onnx.AttributeProto(name=name))
        if attribute is not None:
            self._originals.setdefault(key, copy_proto(attribute))
            attribute.CopyFrom(attribute_value(name, value, attribute.type))
            kind: Literal["attribute", "initializer"] = "attribute"
        elif (tensor := self._targets.initializer(index, path, name)) is not None:
            original = numpy_helper.to_array(tensor, str(self._windows.folder))
            array = np.asarray(value, dtype=original.dtype)
            if array.shape != original.shape:
                raise SpecError(f"override {name!r}: shape {list(array.shape)} differs from {list(original.shape)}")
            self._originals.setdefault(key, copy_proto(tensor))
            tensor.CopyFrom(numpy_helper.from_array(array, name))
            kind = "initializer"
        else:
            attrs, targets = [a.name for a in proto.attribute], self._targets
            inits = sorted(n for n in {*self.graph.reads[index], *proto.input} if targets.initializer(index, path, n))
            raise SpecError(
                f"override: {name!r} is neither an attribute {attrs} nor an initializer {inits} of node "
                f"{targets.where(index, path)!r}"
            )
        try:
            self._rerun()
        except RunFailed as error:  # the model cannot run with it: the override is taken back
            self.revert(index, name, path)
            where = self._targets.where(index, path)
            raise SpecError(f"override {name!r} of {where!r} was reverted: {error}") from error
        return Override(self.graph.keys[index], name, kind, path)

    def revert(self, node: str | int, name: str, inside: Sequence[str] = ()) -> None:
        """Undo one override exactly (the original attribute or initializer comes back)."""
        index, path = self._node(node), tuple(inside)
        original = self._originals.pop((index, name, path), None)
        if original is None:
            raise SpecError(f"revert: node {self._targets.where(index, path)!r} has no override of {name!r}")
        self._restore(index, name, path, original)
        self._rerun()

    def revert_all(self) -> None:
        for (index, name, path), original in list(self._originals.items()):
            self._restore(index, name, path, original)
        self._originals.clear()
        self._rerun()

    def overrides(self) -> list[Override]:
        return [
            Override(self.graph.keys[i], n, "attribute" if isinstance(o, onnx.AttributeProto) else "initializer", p)
            for (i, n, p), o in self._originals.items()
        ]

    def _restore(
        self, index: int, name: str, inside: tuple[str, ...], original: onnx.AttributeProto | onnx.TensorProto
    ) -> None:
        if isinstance(original, onnx.AttributeProto):
            attributes = self._targets.node(index, inside).attribute
            position = next(i for i, a in enumerate(attributes) if a.name == name)
            if original.type == onnx.AttributeProto.UNDEFINED:  # it was the schema's default
                del attributes[position]
            else:
                attributes[position].CopyFrom(original)
        else:
            tensor = self._targets.initializer(index, inside, name)
            assert tensor is not None  # the override found it; the graph's structure never changes
            tensor.CopyFrom(original)

    def set_feeds(self, feeds: Mapping[str, Array]) -> None:
        """New inputs (the Model Inputs window changed one): the current stop and the outputs are computed again."""
        self.feeds = {name: np.asarray(value) for name, value in feeds.items()}
        self.shapes.clear()
        self._rerun()

    def _rerun(self) -> None:
        self._values.clear()
        self._window, self._frontier, self._frontier_step = {}, {}, 0
        self._outputs = None
        if self.state == "paused":
            self._stop_at(self.step_index)
        elif self.state == "finished":
            self.outputs()

    def _node(self, node: str | int) -> int:
        try:
            return self.graph.index(node)
        except KeyError as error:
            raise SpecError(str(error.args[0])) from error
