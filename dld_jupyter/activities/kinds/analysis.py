"""The analysis activity (seed 001 §4, issue 29): a session kind of run whose worker holds an `AnalysisEngine` and
answers the debugger's requests until it is stopped.

It shares the session kind's request loop (`session.serve_lines`, one envelope Request per stdin line). Actions
(`AnalysisAction`, activities/analysis/actions.py; `HANDLERS` answers each, an unknown one is refused): `nodes`
(keys and types in execution order), `state`, `add_breakpoint` / `remove_breakpoint` {node}, `run`, `step`,
`resume`, `finish` (to the end whatever the breakpoints: every value available), `summary` {name} (shape, dtype,
statistics), `tensor` {name} (the array as base64 NPY bytes), `outputs` {data: bool}, `override` {node, name, value:
list or base64 NPY, inside: [attribute, inner node name, …] for a node of its subgraphs}, `revert` {node, name,
inside}, `revert_all`, `overrides`, `shapes` (every value computed so far: its shape), `set_inputs` {inputs: an
.npz, or data: its base64 bytes, from a caller on another machine}, `close`. Node arguments are keys (a unique node
name or `#<index>` in file order) or indices. The inputs travel as one NPZ file named by the spec (the front door
writes it; a remote target stages it), so the worker needs no image reader.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dld_jupyter.activities.analysis.actions import AnalysisAction
from dld_jupyter.activities.analysis.engine import AnalysisEngine
from dld_jupyter.activities.analysis.inputs import load_inputs, model_input_specs
from dld_jupyter.activities.command_line import Args, CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.session import serve_lines, summary
from dld_jupyter.activities.protocol import Channel
from dld_jupyter.activities.result import Outcome
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec
from dld_jupyter.activities.spec import ActivitySpec


@dataclass(frozen=True)
class OrtAnalysisSpec(OrtSessionSpec):
    """An analysis on ONNX Runtime: a session's settings plus the inputs (an NPZ, None: seeded random) and the
    debugger's memory bounds (`window` values fetched per stop, `keep_mb` of tensors kept)."""

    inputs: str | None = None
    window: int = 8
    keep_mb: int = 256

    KIND: ClassVar[str] = "onnxruntime-analysis"
    ACTIVITY: ClassVar[str] = "analysis"

    def __post_init__(self) -> None:
        super().__post_init__()  # every field against its annotation, these too
        for name in ("window", "keep_mb"):
            value = getattr(self, name)
            if value < 1:
                raise SpecError(f"{name}: expected a whole number of at least 1, got {value!r}")

    def resolved(self) -> OrtAnalysisSpec:
        spec = super().resolved()
        inputs = os.path.abspath(self.inputs) if self.inputs else None
        return dataclasses.replace(spec, inputs=inputs)

    def input_paths(self) -> dict[str, str | None]:
        return {"inputs": self.inputs}

    def command_line(self) -> CommandLine:
        """`dld analyze MODEL --inputs NPZ --dump <model>.analysis …`: the analysis run to the end on the same inputs,
        its outputs dumped (breakpoints are the session's, set while it runs: the line says so)."""
        stem = self.model.removesuffix(".onnx")
        args = Args("dld", "analyze", self.model).option("--inputs", self.inputs).option("--dump", stem + ".analysis")
        args.option("--provider", self.provider, "cpu").option("--seed", self.seed, 0)
        args.option("--device", self.device, 0).option("--threads", self.threads, 0)
        args.unsaid("an interactive analysis: the command runs it to the end on its inputs and dumps the outputs "
                    "(add --break NODE for each stop); breakpoints, steps and overrides made while it ran are not "
                    "replayed")
        if self.inputs:
            args.unsaid("--inputs is the analysis's own copy of its inputs, removed when the analysis stops")
        for name, default in (("window", 8), ("keep_mb", 256)):
            if getattr(self, name) != default:
                args.unsaid(f"{name}={getattr(self, name)}: the debugger's memory bound, not needed to run to the end")
        return args.done()


def encode_array(array: np.ndarray[Any, Any]) -> str:
    """An array as base64 NPY bytes (how tensors cross the worker's JSON protocol)."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def decode_array(text: str) -> np.ndarray[Any, Any]:
    try:
        return np.asarray(np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False))
    except (ValueError, OSError) as error:
        raise SpecError(f"value: not base64 NPY bytes ({error})") from error


def _node(args: dict[str, Any]) -> str | int:
    node = args.get("node")
    if isinstance(node, bool) or not isinstance(node, (str, int)):
        raise SpecError(f"node: expected a node key or index, got {node!r}")
    return node


def _name(args: dict[str, Any]) -> str | int:
    name = args.get("name", args.get("node"))
    if isinstance(name, bool) or not isinstance(name, (str, int)):
        raise SpecError(f"name: expected a value name, node key or index, got {name!r}")
    return name


def _inside(args: dict[str, Any]) -> list[str]:
    inside = args.get("inside") or []
    if not isinstance(inside, list) or not all(isinstance(step, str) for step in inside):
        raise SpecError(f"inside: expected a list of subgraph attribute and inner node names, got {inside!r}")
    return inside


def _member(args: dict[str, Any]) -> str:
    name = args.get("name")
    if not isinstance(name, str):
        raise SpecError(f"name: expected an attribute or initializer name, got {name!r}")
    return name


def state(engine: AnalysisEngine) -> dict[str, object]:
    position = engine.position
    return {
        "state": engine.state,
        "position": position,
        "position_key": engine.node_key(position) if position is not None else None,
        "breakpoints": sorted(engine.breakpoints, key=engine.graph.step_of.__getitem__),
        "overrides": [{k: v for k, v in dataclasses.asdict(o).items() if k != "inside" or v}
                      for o in engine.overrides()],
        "held_bytes": engine.held_bytes(),
        "sessions_built": engine.sessions_built,
        "segments_run": engine.segments_run,
    }


def _nodes(engine: AnalysisEngine, args: dict[str, Any]) -> dict[str, object]:
    graph = engine.graph
    inits = {t.name for t in graph.graph.initializer}
    weights = [[n for n in node.input if n in inits] for node in graph.nodes]
    return {"order": graph.order, "keys": graph.keys, "ops": [n.op_type for n in graph.nodes], "weights": weights}


def _value(engine: AnalysisEngine, args: dict[str, Any], with_data: bool) -> dict[str, object]:
    name = engine.value_name(_name(args))
    array = engine.tensor(name)
    return {"name": name, **summary(array), **({"npy": encode_array(array)} if with_data else {})}


def _outputs(engine: AnalysisEngine, args: dict[str, Any]) -> dict[str, object]:
    with_data = bool(args.get("data", False))
    return {k: {**summary(v), **({"npy": encode_array(v)} if with_data else {})} for k, v in engine.outputs().items()}


def _override(engine: AnalysisEngine, args: dict[str, Any]) -> None:
    value = args.get("value")
    value = decode_array(value["npy"]) if isinstance(value, dict) and "npy" in value else value
    engine.override(_node(args), _member(args), value, _inside(args))


def _set_inputs(engine: AnalysisEngine, args: dict[str, Any]) -> None:
    given, encoded = args.get("inputs"), args.get("data")
    if isinstance(encoded, str):  # a remote target's caller: the NPZ's bytes, base64
        source: str | io.BytesIO = io.BytesIO(base64.b64decode(encoded))
    elif isinstance(given, str):
        source = given
    else:
        raise SpecError(f"inputs: expected the path of an .npz (or data: its base64 bytes), got {given!r}")
    engine.set_feeds(read_feeds(engine.model_path, source, 0))


Handler = Callable[[AnalysisEngine, dict[str, Any]], dict[str, object]]
Change = Callable[[AnalysisEngine, dict[str, Any]], object]


def then_state(change: Change) -> Handler:
    """A handler that makes `change` and replies with the debugger's state (what every change of it replies)."""

    def handle(engine: AnalysisEngine, args: dict[str, Any]) -> dict[str, object]:
        change(engine, args)
        return state(engine)

    return handle


_A = AnalysisAction
# Each action's handler (CLOSE is the request loop's: session.serve_lines ends the session on it).
HANDLERS: dict[AnalysisAction, Handler] = {
    _A.PING: lambda engine, args: {"pong": True},
    _A.NODES: _nodes,
    _A.STATE: then_state(lambda engine, args: None),
    _A.OVERRIDES: then_state(lambda engine, args: None),  # the state carries them
    _A.ADD_BREAKPOINT: then_state(lambda engine, args: engine.add_breakpoint(_node(args))),
    _A.REMOVE_BREAKPOINT: then_state(lambda engine, args: engine.remove_breakpoint(_node(args))),
    _A.RUN: then_state(lambda engine, args: engine.run()),
    _A.STEP: then_state(lambda engine, args: engine.step()),
    _A.RESUME: then_state(lambda engine, args: engine.resume()),
    _A.FINISH: then_state(lambda engine, args: engine.finish()),
    _A.SUMMARY: lambda engine, args: _value(engine, args, False),
    _A.TENSOR: lambda engine, args: _value(engine, args, True),
    _A.OUTPUTS: _outputs,
    _A.OVERRIDE: then_state(_override),
    _A.REVERT: then_state(lambda engine, args: engine.revert(_node(args), _member(args), _inside(args))),
    _A.REVERT_ALL: then_state(lambda engine, args: engine.revert_all()),
    _A.SHAPES: lambda engine, args: {"shapes": dict(engine.shapes)},
    _A.SET_INPUTS: then_state(_set_inputs),
}


def answer(engine: AnalysisEngine, action: str, args: dict[str, Any]) -> dict[str, object]:
    """The data of the reply to `action`, from its handler (SpecError for an unknown action or bad arguments)."""
    handler = HANDLERS.get(AnalysisAction.parse(action))
    if handler is None:
        raise SpecError(f"action: {action!r} is answered by the request loop, not the analysis")
    return handler(engine, args)


def read_feeds(model: str, inputs: str | io.BytesIO | None, seed: int) -> dict[str, np.ndarray[Any, Any]]:
    """The inputs of an NPZ checked against the model's inputs, random (seeded) for any it lacks."""
    specs = model_input_specs(model)
    if not inputs:
        return load_inputs(specs, seed=seed)
    try:
        with np.load(inputs, allow_pickle=False) as saved:
            arrays = {name: saved[name] for name in saved.files}
    except (OSError, ValueError) as error:
        raise SpecError(f"inputs: {inputs} is not a readable .npz ({error})") from error
    return load_inputs(specs, dict(arrays), seed=seed)


def serve(spec: ActivitySpec, channel: Channel, requests: Iterable[str]) -> Outcome:
    """Open the analysis and answer `requests` until `close` or their end."""
    if not isinstance(spec, OrtAnalysisSpec):
        raise SpecError(f"kind: the analysis activity runs onnxruntime-analysis specs, not {spec.KIND!r}")
    channel.progress(0.0, "preparing the analysis")
    feeds = read_feeds(spec.model, spec.inputs, spec.seed)
    engine = AnalysisEngine(spec.model, feeds, spec.ort_provider, spec.window, spec.keep_mb << 20, spec.threads)
    try:
        serve_lines(channel, requests, lambda action, args: answer(engine, action, args))
    finally:
        engine.close()
    return Outcome(None)
