"""A live analysis as every front door drives it (issue 29): `analyse(document_or_path, inputs=..., provider=...)`
starts the analysis session kind in the activity worker and returns an `Analysis`, the debugger's handle. Why here:
the notebook (`d.analyse(...)`), the Model Inputs / Channel Inspector widgets and the Lab commands share it.
It speaks ONNX node names (issue 37): `add_breakpoint("/layer2/layer2.0/conv2/Conv")`, `run()` returns a `Stop`
naming that node, `position`, `breakpoints` and `execution_order` list names (`#<file index>` for a node without a
unique one). It takes the document's element ids (`n12`, `v7`) too, and the designer's views read `position_id`,
`breakpoint_ids` and `order_ids`. While live, the document and its children are read-only (`Document.hold`): an edit
is refused with "The model is being analysed: Stop Analysis to edit it"; `stop()` gives it back. Inputs are loaded
here (`activities.analysis.inputs`) and reach the worker as one NPZ. Overrides live in the worker's private copy only.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from dld_jupyter.activities.analysis.actions import AnalysisAction
from dld_jupyter.activities.analysis.inputs import InputSource, load_inputs, model_input_specs
from dld_jupyter.activities.analysis.layers import AnalysisLayer
from dld_jupyter.activities.errors import RunFailed, SpecError
from dld_jupyter.activities.kinds.analysis import OrtAnalysisSpec, decode_array, encode_array
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.scheduler import start_activity
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.activities.targets.choose import target_named
from dld_jupyter.activities.targets.local import LocalTarget
from dld_jupyter.document import Document
from dld_jupyter.frontdoor.analysis_layers import LayerActions
from dld_jupyter.frontdoor.analysis_names import NodeNames, Stop
from dld_jupyter.frontdoor.analysis_video import VideoActions
from dld_jupyter.frontdoor.run_source import RunInput

Array = np.ndarray[Any, Any]
Inputs = Mapping[str, InputSource | str | os.PathLike[str] | Array]
START_TIMEOUT_S = 600.0  # writing the private copy of a large model and its first session take a while
REQUEST_TIMEOUT_S = 300.0
LOCK_REASON = "The model is being analysed: Stop Analysis to edit it"


class Analysis(LayerActions, VideoActions):
    """One live analysis; see the module docstring. `run`, `step` and `resume` return the `Stop` they reached, or
    None when the run reached the end."""

    lock_reason = LOCK_REASON
    lock_fix = "Stop the analysis (a.stop(), or Stop Analysis in the designer) to edit the model again."

    def __init__(
        self,
        model: RunInput,
        inputs: Inputs | None = None,
        provider: str = "cpu",
        *,
        window: int = 8,
        keep_mb: int = 256,
        threads: int = 0,
        seed: int = 0,
        device: int = 0,
        target: str | Target | None = None,
    ) -> None:
        found = target_named(target) if isinstance(target, str) else target  # "local", a saved connection, ssh://
        # None: this machine; an SshTarget: the worker runs there (its deployment), values come back windowed here
        self.target: Target | None = None if isinstance(found, LocalTarget) else found
        self._model = ModelRef.of(model)  # a copy of unsaved edits it runs goes at `stop`
        self.document: Document | None = self._model.document
        self._folder = Path(tempfile.mkdtemp(prefix="dld-analyse-"))
        self._listeners: list[Callable[[Analysis], object]] = []
        self._state: dict[str, Any] = {}
        self._values: dict[tuple[str, str], Any] = {}  # the value of each override in force, by (node id, name)
        self._layers: list[AnalysisLayer] = []  # analysis layers: in the analysis copy only (analysis_layers.py)
        self.snapshots: dict[str, Array] = {}
        self._built: dict[tuple[str, str], Any] = {}
        self._inside: dict[str, tuple[str, tuple[str, ...]]] = {}  # member_key: (node id, subgraph path)
        self.live = False
        try:
            path = self._model.path  # the unsaved edits as the document has them now (it is held from now)
            self.feeds = load_inputs(model_input_specs(path), inputs, seed)
            np.savez(self._folder / "inputs.npz", allow_pickle=False, **self.feeds)
            spec = OrtAnalysisSpec(
                model=path,
                provider=provider,
                inputs=str(self._folder / "inputs.npz"),
                window=window,
                keep_mb=keep_mb,
                threads=threads,
                seed=seed,
                device=device,
            )
        except BaseException:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._model.release()
            raise
        if self.document is not None:
            self.document.hold(self)
        self.live = True
        self.source_model = path  # the model as the user has it; the analysis copy adds the analysis layers
        self._start(spec)

    def _start(self, spec: OrtAnalysisSpec) -> None:
        """A worker on `spec` (at launch, and again on the analysis copy when analysis layers change)."""
        self.activity: Run = start_activity(spec, target=self.target, remember=False)
        try:
            nodes = self._ask(AnalysisAction.NODES, timeout=START_TIMEOUT_S)
        except BaseException:
            self.stop()
            raise
        self.order: list[int] = list(nodes["order"])
        self.keys: list[str] = list(nodes["keys"])
        self.ops: list[str] = list(nodes["ops"])
        self._weights: list[list[str]] = [list(names) for names in nodes["weights"]]
        self.names = NodeNames(self.keys, self.document, self._layer_nodes())  # ids and names of its nodes
        self._ids = self.names.ids
        self._ask(AnalysisAction.STATE)

    def _end_worker(self) -> None:
        with contextlib.suppress(Exception):
            self.activity.request(AnalysisAction.CLOSE, timeout=10.0)
        self.activity.close()
        with contextlib.suppress(Exception):
            self.activity.wait(30.0)
        if not self.activity.done:
            self.activity.cancel()

    # -- requests ------------------------------------------------------------------------------------------------
    def _ask(self, action: AnalysisAction, timeout: float = REQUEST_TIMEOUT_S, **args: Any) -> dict[str, Any]:
        if not self.live:
            raise RunFailed(f"{action}: the analysis is stopped; start another with d.analyse(...)")
        try:
            reply = self.activity.request(action, args, timeout=timeout)
        except RunFailed as error:
            if not self.activity.done:
                raise
            self.stop()  # the worker is gone (a crash, an out-of-memory kill): the model is editable again
            raise RunFailed(f"{error}; the analysis has stopped and the model is editable again") from error
        if not reply["ok"]:
            raise SpecError(f"{action}: {reply['error']}")
        data = reply["data"] if isinstance(reply["data"], dict) else {}
        if "state" in data:
            self._state = data
            for listener in list(self._listeners):
                with contextlib.suppress(Exception):  # a broken view must not break the analysis
                    listener(self)
        return data

    def subscribe(self, listener: Callable[[Analysis], object]) -> Callable[[], None]:
        """Call `listener(analysis)` after every change of state (a stop, a breakpoint, an override)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- debugger ------------------------------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """One of "idle" (not started), "paused" (at `position`), "finished" (ran to the end) or "stopped"."""
        return str(self._state.get("state", "idle")) if self.live else "stopped"

    @property
    def position(self) -> str | None:
        """The ONNX name of the node it stopped at (that node has run), or None."""
        index = self._state.get("position")
        return self.keys[index] if isinstance(index, int) and self.live else None

    @property
    def breakpoints(self) -> list[str]:
        """The ONNX names of the nodes with a breakpoint, in execution order."""
        return [self.keys[i] for i in self._state.get("breakpoints", [])]

    @property
    def execution_order(self) -> list[str]:
        """The ONNX name of every node of the main graph, in the order the debugger visits them."""
        return [self.keys[i] for i in self.order]

    # the same in the document's element ids: what the designer's overlay, selection and inspector speak
    @property
    def position_id(self) -> str | None:
        index = self._state.get("position")
        return self._ids[index] if isinstance(index, int) and self.live else None

    @property
    def breakpoint_ids(self) -> list[str]:
        return [self._ids[i] for i in self._state.get("breakpoints", [])]

    @property
    def order_ids(self) -> list[str]:
        return [self._ids[i] for i in self.order]

    def add_breakpoint(self, node: str | int) -> None:
        """Break at `node` (its ONNX name; a document id or a file index also work)."""
        self._ask(AnalysisAction.ADD_BREAKPOINT, node=self.names.index(node))

    def remove_breakpoint(self, node: str | int) -> None:
        self._ask(AnalysisAction.REMOVE_BREAKPOINT, node=self.names.index(node))

    def run(self) -> Stop | None:
        """From the start to the first breakpoint in execution order, or to the end (None)."""
        self._ask(AnalysisAction.RUN)
        return self.stopped_at()

    def step(self) -> Stop | None:
        """To the next node in execution order (None: past the last, the run finished)."""
        self._ask(AnalysisAction.STEP)
        return self.stopped_at()

    def resume(self) -> Stop | None:
        """To the next breakpoint, or to the end (None)."""
        self._ask(AnalysisAction.RESUME)
        return self.stopped_at()

    def stopped_at(self) -> Stop | None:
        """The `Stop` it is paused at, or None."""
        index = self._state.get("position")
        if not isinstance(index, int) or not self.live:
            return None
        return Stop(self.keys[index], self.ops[index], self.order.index(index))

    # -- tensors -------------------------------------------------------------------------------------------------
    def tensor(self, node_or_value: str | int) -> Array:
        """A value computed so far (a node: its first output), as numpy."""
        return decode_array(str(self._ask(AnalysisAction.TENSOR, name=self.names.value(node_or_value))["npy"]))

    def summary(self, node_or_value: str | int) -> dict[str, Any]:
        """Shape, dtype, min, max and mean of a value computed so far, without shipping it."""
        return self._ask(AnalysisAction.SUMMARY, name=self.names.value(node_or_value))

    def outputs(self, finish: bool = True) -> dict[str, Array]:
        """The model's outputs on the inputs, with the overrides applied. It leaves the debugger at the end (state
        "finished", as `run()` with no breakpoint left would), so every value is available afterwards; `finish=False`
        reads them without leaving the current stop (the Analysis Output view while paused)."""
        if finish and self.state != "finished":
            self._ask(AnalysisAction.FINISH)
        data = self._ask(AnalysisAction.OUTPUTS, data=True)
        return {name: decode_array(str(entry["npy"])) for name, entry in data.items()}

    def weights(self, node: str | int) -> dict[str, Array]:
        """The initializers `node` reads (its weights, biases), by name: what the Channel Inspector shows beside its
        output. Overrides in force are included."""
        index = self.names.index(node)
        if not isinstance(index, int):
            index = self.keys.index(index) if index in self.keys else -1
        if not 0 <= index < len(self._weights):
            raise SpecError(f"weights: {node!r} is no node of the analysed model")
        return {name: self.tensor(name) for name in self._weights[index]}

    def shapes(self) -> dict[str, list[int]]:
        """The shape of every value computed so far, by value name (what the Network Overview labels)."""
        return {str(k): list(v) for k, v in self._ask(AnalysisAction.SHAPES)["shapes"].items()}

    def set_inputs(self, inputs: Inputs) -> None:
        """Change some inputs (the others keep theirs); the current stop and the outputs are computed again."""
        path = self._folder / "inputs.npz"
        specs = model_input_specs(self.activity.spec.model)
        self.feeds = {**self.feeds, **load_inputs(specs, inputs, 0, only_given=True)}
        np.savez(path, allow_pickle=False, **self.feeds)
        if self.target is None:
            self._ask(AnalysisAction.SET_INPUTS, inputs=str(path))
        else:  # the worker's machine cannot read this one's files: the NPZ travels in the request
            self._ask(AnalysisAction.SET_INPUTS, data=base64.b64encode(path.read_bytes()).decode("ascii"))

    # -- runtime options -----------------------------------------------------------------------------------------
    def override(self, node: str | int, name: str, value: Any, inside: tuple[str, ...] = ()) -> None:
        """Set attribute `name` of `node`, or the initializer `name` it reads, for this analysis only (never the
        document, never saved); the outputs and the current stop are computed again. `inside` (attribute, inner node
        name, …): an attribute of a node of `node`'s subgraphs instead (a child document's node), or an initializer
        of the subgraph bodies around it that it reads."""
        sent = {"npy": encode_array(np.asarray(value))} if isinstance(value, (np.ndarray, np.generic)) else value
        key = (self.member_key(self.names.id_of(node), inside), name)
        self._values[key], self._inside[key[0]] = value, (self.names.id_of(node), tuple(inside))  # the editors show it
        try:
            self._ask(AnalysisAction.OVERRIDE, node=self.names.index(node), name=name, value=sent, inside=list(inside))
        except BaseException:
            self._values.pop(key, None)  # a refused override is taken back whole (the engine restores the model's)
            raise

    def revert(self, node: str | int, name: str, inside: tuple[str, ...] = ()) -> None:
        self._values.pop((self.member_key(self.names.id_of(node), inside), name), None)
        self._ask(AnalysisAction.REVERT, node=self.names.index(node), name=name, inside=list(inside))

    @staticmethod
    def member_key(node_id: str, inside: tuple[str, ...] = ()) -> str:
        """How `override_values` names a node: its id, then the subgraph path of a child document's node."""
        return "\x1f".join((node_id, *inside))

    def revert_all(self) -> None:
        """Drop every override; the analysis layers keep their options (those are no override of the model)."""
        self._values.clear()
        self._ask(AnalysisAction.REVERT_ALL)
        self._reapply_options()

    def override_values(self) -> dict[tuple[str, str], Any]:
        """The value of each override in force, by (node id, attribute or initializer name): what the editors show
        in place of the document's value while this analysis is live."""
        return dict(self._values) if self.live else {}

    @property
    def overrides(self) -> list[dict[str, str]]:
        """The analysis overrides in force: node, name, kind ("attribute" or "initializer"); an analysis layer's
        options are not among them (`analysis_layers` has those)."""
        options = self._option_initializers()
        return [dict(o) for o in self._state.get("overrides", []) if o.get("name") not in options]

    # -- end -----------------------------------------------------------------------------------------------------
    def stop(self) -> None:
        """End the analysis: the worker closes, the document is editable again. Stopping twice does nothing."""
        if self.live:
            self.live = False
            self._end_worker()
            if self.document is not None:
                self.document.hold(self, release=True)
            for listener in list(self._listeners):
                with contextlib.suppress(Exception):
                    listener(self)
        shutil.rmtree(self._folder, ignore_errors=True)
        self._model.release()

    def __enter__(self) -> Analysis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<Analysis {self.state} at {self.stopped_at()} ({len(self.breakpoints)} breakpoints)>"


def analyse(model: RunInput, inputs: Inputs | None = None, provider: str = "cpu", **options: Any) -> Analysis:
    """Start an analysis of `model` (a path, a Document or a Designer) on `inputs` ({input name: "cat.png",
    "x.npy", an array, "random" or "zeros"}; inputs not given are random); `provider` "cpu" or "cuda";
    `target="gpu-box"` (a saved connection, `ssh://user@host`, or an SshTarget) runs the worker there."""
    from dld_jupyter.frontdoor.runs import track

    track()  # the live runs registry lists the analysis
    return Analysis(model, inputs, provider, **options)
