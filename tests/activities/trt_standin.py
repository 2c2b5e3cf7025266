"""A TensorRT STAND-IN for the end-to-end pipeline tests only (spec -> worker process -> outputs -> report).

TensorRT cannot be installed in this workplace (shared/GPU.md). This module implements the backend's `TrtRuntime`
protocol by replaying real recorded trtexec outputs (shared/trt-samples, copied in tests/data/trt): the engine's
layer information (`*.graph.json`), per-layer times (`*.profile.json`) and per-inference times (`*.timing.json`).
It builds nothing. It refuses what the real API would refuse: Polygraphy keywords its loaders do not have,
TensorRT enum members that TensorRT 10's documented Python API does not have, layer precisions for layers the
network does not have, dynamic inputs without a profile. Selected with DLD_TENSORRT_RUNTIME=
"tests.activities.trt_standin:StandInRuntime"; reports say `tensorrt_runtime: "stand-in (replay)"`.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import onnx

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import PassTimes
from dld_jupyter.activities.runtimes.tensorrt.mapping import BuildPlan, TrtEnum
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.report_format.trt_names import parse_layer_name
from tests.reports.conftest import COPY, shared_samples

SAMPLE = "tf-resnet50-rtx3090-fp16.engine"
ENGINE_MAGIC = b"dld stand-in engine: replays " + SAMPLE.encode()

# Members of the TensorRT 10 Python API enums the mapping uses (docs.nvidia.com TensorRT Python API reference).
DOCUMENTED = {
    "ProfilingVerbosity": {"LAYER_NAMES_ONLY", "DETAILED", "NONE"},
    "MemoryPoolType": {"WORKSPACE", "DLA_MANAGED_SRAM", "DLA_LOCAL_DRAM", "DLA_GLOBAL_DRAM", "TACTIC_DRAM"},
    "HardwareCompatibilityLevel": {"NONE", "AMPERE_PLUS"},
    "DataType": {"FLOAT", "HALF", "BF16", "FP8", "INT64", "INT32", "INT8", "INT4", "UINT8", "BOOL"},
    "TacticSource": {"CUBLAS", "CUBLAS_LT", "CUDNN", "EDGE_MASK_CONVOLUTIONS", "JIT_CONVOLUTIONS"},
}


def sample_dir() -> Path:
    return shared_samples() or COPY


def _params(function: Any) -> set[str]:
    return set(inspect.signature(function).parameters)


def _check_enums(value: Any, where: str) -> None:
    if isinstance(value, TrtEnum):
        if value.member not in DOCUMENTED.get(value.enum, set()):
            raise SpecError(f"stand-in: {where}: trt.{value.enum}.{value.member} is not in the TensorRT 10 API")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_enums(key, where)
            _check_enums(item, where)


def check_plan(model: str, plan: BuildPlan) -> None:
    """Refuse what Polygraphy / TensorRT would refuse (see the module docstring)."""
    from polygraphy.backend.trt import CreateConfig, EngineFromNetwork, NetworkFromOnnxPath

    config_params = _params(CreateConfig.__init__) | _params(CreateConfig.__mro__[1].__init__)
    for loader, keywords, allowed in (
        ("CreateConfig", plan.config, config_params),
        ("NetworkFromOnnxPath", plan.network, _params(NetworkFromOnnxPath.__init__)),
        ("EngineFromNetwork", plan.engine, _params(EngineFromNetwork.__init__)),
    ):
        unknown = sorted(set(keywords) - allowed)
        if unknown:
            raise SpecError(f"stand-in: {loader} has no keyword(s) {unknown}")
        _check_enums(keywords, loader)
    _check_enums(plan.layer_precisions, "SetLayerPrecisions")
    _check_enums({TrtEnum("TacticSource", k): v for k, v in plan.tactic_sources.items()}, "set_tactic_sources")
    proto = onnx.load(model, load_external_data=False)
    layers = {node.name for node in proto.graph.node}
    missing = sorted(set(plan.layer_precisions) - layers)
    if missing:
        raise SpecError(f"stand-in: SetLayerPrecisions: the network has no layer(s) {missing}")
    for value in proto.graph.input:
        dims = value.type.tensor_type.shape.dim
        if any(not d.HasField("dim_value") for d in dims) and value.name not in plan.profiles:
            raise SpecError(f"stand-in: {value.name}: dynamic input is missing dimensions in profile 0")


class StandInPasses:
    """One execution context's passes: the recorded passes again, in order, from the first."""

    def __init__(self, engine: StandInEngine, profiled: bool, copies: bool) -> None:
        self.records = itertools.cycle(engine.times)
        self.layer_ms, self.profiled, self.copies = engine.layer_ms, profiled, copies

    def run(self) -> PassTimes:
        r = next(self.records)
        copies = self.copies
        return PassTimes(
            wall_ms=float(r["latencyMs"]) if copies else float(r["computeMs"]),
            layers=list(self.layer_ms) if self.profiled else [],
            h2d_ms=float(r["h2dMs"]) if copies else 0.0,
            d2h_ms=float(r["d2hMs"]) if copies else 0.0,
            start=float(r["startComputeMs"]) / 1000.0,
        )

    def outputs(self) -> dict[str, Any]:
        raise SpecError("stand-in: trtexec recorded timings, not output values; there are no outputs to fetch")


REFITTABLE = b" (refittable)"  # appended to ENGINE_MAGIC by a build with refit or strip_plan


class StandInEngine:
    def __init__(self, folder: Path, refittable: bool = False) -> None:
        self.refittable = refittable  # ICudaEngine.refittable
        self.refitted_from: list[str] = []
        self.layers = json.loads((folder / f"{SAMPLE}.graph.json").read_text())
        profile = json.loads((folder / f"{SAMPLE}.profile.json").read_text())
        self.layer_ms = [(r["name"], float(r["averageMs"])) for r in profile if "name" in r]
        self.times = json.loads((folder / f"{SAMPLE}.timing.json").read_text())

    @property
    def device_memory_bytes(self) -> int:
        return 0  # not recorded by trtexec; the stand-in does not invent it

    def layer_information(self) -> Any:
        return self.layers

    def serialize(self) -> bytes:
        return ENGINE_MAGIC + (REFITTABLE if self.refittable else b"")

    def refit(self, model: str) -> None:
        """As IParserRefitter.refitFromFile: the model must hold the nodes whose weights the engine's layers came
        from (the replayed times stay the recorded ones)."""
        if not self.refittable:
            raise SpecError("stand-in: IRefitter: the engine was not built refittable")
        nodes = {node.name for node in onnx.load(model).graph.node}
        sources = {s for layer in self.layers["Layers"] for s in parse_layer_name(layer["Name"]).sources}
        if not sources <= nodes:
            raise SpecError(f"stand-in: refitFromFile: {len(sources - nodes)} layer source(s) missing in {model}")
        self.refitted_from.append(model)

    @contextmanager
    def passes(
        self, shapes: dict[str, tuple[int, ...]], profiled: bool, copies: bool, seed: int
    ) -> Iterator[StandInPasses]:
        yield StandInPasses(self, profiled, copies)

    def close(self) -> None:
        return None


class StandInRuntime:
    name = "stand-in (replay)"
    version = "8.x (recorded)"

    def __init__(self, settings: TrtSettings) -> None:
        self.settings = settings
        self.folder = sample_dir()

    def build(self, model: str, plan: BuildPlan, reporter: Reporter) -> StandInEngine:
        check_plan(model, plan)
        reporter.log("stand-in: replaying recorded TensorRT outputs, nothing is built", "warning")
        refittable = bool(plan.config.get("refittable") or plan.config.get("strip_plan"))
        return StandInEngine(self.folder, refittable)

    def load(self, engine_path: str, plugins: tuple[str, ...]) -> StandInEngine:
        data = Path(engine_path).read_bytes()
        if data not in (ENGINE_MAGIC, ENGINE_MAGIC + REFITTABLE):
            raise SpecError(f"stand-in: {engine_path} is not an engine the stand-in wrote")
        return StandInEngine(self.folder, data.endswith(REFITTABLE))
