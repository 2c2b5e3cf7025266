"""TensorRT sessions (seed 000 "Profiling with TensorRT"): an engine, built from the model's plan or the prebuilt one,
opened for the profile kind's measured loop; and what both TensorRT activities share (engine opening, run
information with the equivalent trtexec command line, the system table).

A session runs plain passes in one execution context and profiled passes (an IProfiler attached) in another, on
random inputs at the profiles' opt shapes; layer times become the layer table through `report.py`.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import onnx

from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.activities.gpu.nvml import device_info
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.base import Feeds, LayerTable, PassTimes
from dld_jupyter.activities.runtimes.tensorrt.dry_run import plan_for, timing_cache_for, trtexec_for
from dld_jupyter.activities.runtimes.tensorrt.model import build_shapes, read_model_attributes
from dld_jupyter.activities.runtimes.tensorrt.prebuilt import check_prebuilt
from dld_jupyter.activities.runtimes.tensorrt.report import trt_layers, trt_timeline
from dld_jupyter.activities.runtimes.tensorrt.runtime import RUNTIME_VARIABLE, TrtEngine, TrtPasses, TrtRuntime
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec, TrtProfileSpec
from dld_jupyter.activities.system import system_info
from dld_jupyter.report_format.builder import RunInfo
from dld_jupyter.report_format.engine_graph import EngineGraph, EngineGraphError, engine_graph_from_json
from dld_jupyter.report_format.trt_names import OnnxIndex

UNAVAILABLE = (
    "TensorRT is not installed in this Python environment: pip install tensorrt (needs an NVIDIA GPU and driver; "
    "or choose another installation with --trt-source path --trt-path DIR)"
)


def tensorrt_unavailable(settings: TrtSettings | None = None) -> str | None:
    """Why TensorRT cannot run here (with the fix), or None. Imports tensorrt: call it in the worker."""
    if os.environ.get(RUNTIME_VARIABLE):
        return None  # a named runtime (the tests' stand-in) answers for itself
    if settings is not None and settings.tensorrt == "trtexec":
        return "running a trtexec binary is not supported here: run the --dry-run command line yourself"
    if settings is not None and settings.tensorrt == "path":
        folder = settings.tensorrt_path or ""
        if not (Path(folder) / "tensorrt").is_dir():
            return f"TensorRT is not installed in {folder}: give the folder that holds the tensorrt package"
        # not imported here: a process imports one tensorrt, and the asking one (a kernel) may hold another; the
        # worker imports this one and checks it did (live.import_tensorrt)
    elif importlib.util.find_spec("tensorrt") is None:
        return UNAVAILABLE
    else:
        try:
            from dld_jupyter.activities.runtimes.tensorrt.live import import_tensorrt

            import_tensorrt(settings or TrtSettings())
        except UnavailableError as error:
            return str(error).removeprefix("unavailable: ")
    gpu = str(device_info(settings.device if settings else 0).get("gpu", ""))
    return f"no NVIDIA GPU: {gpu}" if gpu.startswith("unavailable") else None


def gpu_info(settings: TrtSettings) -> dict[str, Any]:
    return device_info(settings.device)


def open_engine(spec: TrtBuildSpec | TrtProfileSpec, runtime: TrtRuntime, reporter: Reporter) -> tuple[TrtEngine, Any]:
    """The engine (built, or the prebuilt one) and its build plan (None for a prebuilt engine)."""
    attrs = read_model_attributes(spec.model)
    gpu = str(gpu_info(spec.settings).get("gpu", ""))
    cache = timing_cache_for(spec.settings, runtime.version, None if gpu.startswith("unavailable") else gpu)
    cache.parent.mkdir(parents=True, exist_ok=True)
    plan = plan_for(spec, attrs, str(cache))
    if plan is None:
        assert isinstance(spec, TrtProfileSpec) and spec.profiler.prebuilt_engine
        path = spec.profiler.prebuilt_engine
        reporter.log(f"loading the prebuilt engine {path}")
        engine = runtime.load(path, spec.settings.plugins)
        try:
            def opt() -> dict[str, tuple[int, ...]]:  # what the run feeds (TrtSession.shapes)
                return {name: profile.opt for name, profile in build_shapes(attrs, None).items()}

            check_prebuilt(engine.layer_information(), spec.model, opt, path)
            if engine.refittable:  # the seed: refit when possible, so the model's weights as they are now run
                engine.refit(spec.model)
                reporter.log(f"refitted the prebuilt engine with the weights of {spec.model}")
            else:
                reporter.log("the prebuilt engine is not refittable: it runs with the weights it was built with")
        except BaseException:
            engine.close()
            raise
        return engine, None
    for note in plan.notes:
        reporter.log(note, "warning")
    reporter.progress(0.05, "building engine")
    return runtime.build(spec.model, plan, reporter), plan


def engine_graph(engine: TrtEngine, reporter: Reporter) -> EngineGraph | None:
    try:
        return engine_graph_from_json(engine.layer_information(), "engine inspector")
    except EngineGraphError as error:
        reporter.log(f"no layer information ({error}): was the engine built without detailed metadata?", "warning")
        return None


def onnx_index(model: str) -> OnnxIndex:
    return OnnxIndex.from_model(onnx.load(model, load_external_data=False))


def run_info(spec: TrtBuildSpec | TrtProfileSpec, runtime: TrtRuntime, engine: TrtEngine, plan: Any) -> RunInfo:
    gpu = gpu_info(spec.settings)
    command = trtexec_for(spec, plan)
    settings = {k: v for k, v in spec.to_dict().items() if k != "output"}
    settings.update(
        runtime=f"{runtime.name} {runtime.version}",
        trtexec=command.text(),
        notes=command.notes,
        timeline="layers laid end to end per pass: IProfiler reports durations, not start times",
    )
    device = str(gpu.get("gpu", "GPU"))
    return RunInfo(
        model=Path(spec.user_model()).stem,  # a copy of unsaved edits is named after its document
        model_path=spec.model,
        backend="tensorrt",
        provider=device,
        device=device,
        optimization=f"builder optimization level {spec.settings.optimization_level}" if plan is not None else "",
        settings=settings,
        device_memory_bytes=engine.device_memory_bytes,
    )


def system_table(runtime: TrtRuntime, settings: TrtSettings) -> dict[str, Any]:
    return {**system_info(), **gpu_info(settings), "tensorrt": runtime.version, "tensorrt_runtime": runtime.name}




class TrtSession:
    """`runtimes.base.Session` over a `TrtEngine`; closes the engine when the runtime's context ends."""

    def __init__(self, spec: TrtProfileSpec, runtime: TrtRuntime, reporter: Reporter) -> None:
        self.spec, self.runtime = spec, runtime
        self.engine, self.plan = open_engine(spec, runtime, reporter)
        self.graph = engine_graph(self.engine, reporter)
        plan = self.plan
        profiles = plan.profiles if plan is not None else build_shapes(read_model_attributes(spec.model), None)
        self.shapes = {name: profile.opt for name, profile in profiles.items()}  # the seed: opt sizes, random data
        self._context = ExitStack()
        self._passes: TrtPasses | None = None
        self._profiled: bool | None = None

    def _open(self, profiled: bool, copies: bool) -> TrtPasses:
        self._context.close()
        self._context = ExitStack()
        passes = self._context.enter_context(self.engine.passes(self.shapes, profiled, copies, self.spec.profiler.seed))
        self._passes, self._profiled = passes, profiled
        return passes

    def run(self, feeds: Feeds | None, profiled: bool) -> PassTimes:
        _no_feeds(feeds)
        passes = self._passes
        if passes is None or self._profiled is not profiled:
            passes = self._open(profiled, not self.spec.profiler.hide_non_compute)
        return passes.run()

    def record_kernels(self, on: bool) -> bool:
        return False  # TensorRT's layer times come from its own profiler; no CUPTI recording here

    def layers(
        self,
        profiled: Sequence[PassTimes],
        median: int,
        kernel_passes: Sequence[PassTimes] = (),
        kernel_median: int = 0,
    ) -> LayerTable:
        layers = trt_layers(self.graph, list(profiled), onnx_index(self.spec.model))
        return LayerTable(layers, trt_timeline(layers, profiled[median], median))

    def outputs(self, names: Sequence[str], feeds: Feeds | None = None) -> dict[str, Any]:
        _no_feeds(feeds)
        with self.engine.passes(self.shapes, False, True, self.spec.profiler.seed) as passes:
            passes.run()
            values = passes.outputs()
        unknown = sorted(set(names) - set(values))
        if unknown:
            raise SpecError(f"outputs: {unknown} are not outputs of the engine; its outputs are {sorted(values)}")
        return {name: values[name] for name in names} if names else values

    def describe(self) -> tuple[RunInfo, dict[str, Any]]:
        return run_info(self.spec, self.runtime, self.engine, self.plan), system_table(self.runtime, self.spec.settings)

    def close(self) -> None:
        self._context.close()
        self.engine.close()


def _no_feeds(feeds: Feeds | None) -> None:
    if feeds is not None:
        raise SpecError("feeds: TensorRT sessions run on seeded random inputs at the profiles' opt shapes; give none")
