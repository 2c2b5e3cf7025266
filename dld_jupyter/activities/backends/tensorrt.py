"""The TensorRT backends (seed 000 "Exporting a TensorRT Engine", "Profiling with TensorRT"): export runs
`TrtBuildSpec`s, profile runs `TrtProfileSpec`s, both in the worker process through a `TrtRuntime`.

Profile: build (or load the prebuilt engine), read its layer information, run warm-up + N plain passes (the pass
times users trust), then warm-up + N passes with an IProfiler (layer times; the difference of the medians is the
profiling overhead), sampling NVML/GPM metrics during the profiled passes, clocks locked when asked. Export: build,
write the engine (and the inspector's `.trt.json` when asked) and a report of the engine's layers without times.
Both assemble their report with `report_format.builder`, carrying the equivalent trtexec command line.
"""

from __future__ import annotations

import importlib.util
import os
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import onnx

from dld_jupyter.activities.backends.trt_passes import PassTimes
from dld_jupyter.activities.backends.trt_report import trt_layers, trt_timeline
from dld_jupyter.activities.backends.trt_runtime import RUNTIME_VARIABLE, TrtEngine, TrtRuntime, load_runtime
from dld_jupyter.activities.cache import write_json_atomic
from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.activities.gpu.clocks import locked_clocks
from dld_jupyter.activities.gpu.nvml import MetricsSampler, device_info
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.system import system_info
from dld_jupyter.activities.trt_dry_run import plan_for, timing_cache_for, trtexec_for
from dld_jupyter.activities.trt_model import build_shapes, read_model_attributes
from dld_jupyter.activities.trt_settings import TrtSettings
from dld_jupyter.activities.trt_spec import TrtBuildSpec, TrtProfileSpec
from dld_jupyter.report_format.builder import LayerRecord, RunInfo, build_report, layer_pass_index
from dld_jupyter.report_format.engine_graph import EngineGraph, EngineGraphError, engine_graph_from_json
from dld_jupyter.report_format.model import MetricSeries, Report
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
    elif importlib.util.find_spec("tensorrt") is None:
        return UNAVAILABLE
    try:
        from dld_jupyter.activities.backends.trt_live import import_tensorrt

        import_tensorrt(settings or TrtSettings())
    except UnavailableError as error:
        return str(error).removeprefix("unavailable: ")
    gpu = str(device_info(settings.device if settings else 0).get("gpu", ""))
    return f"no NVIDIA GPU: {gpu}" if gpu.startswith("unavailable") else None


class _TensorRTBase:
    spec_kind = ""

    def available(self) -> str | None:
        return tensorrt_unavailable()

    def available_for(self, spec: ActivitySpec) -> str | None:
        settings = getattr(spec, "settings", None)
        return tensorrt_unavailable(settings if isinstance(settings, TrtSettings) else None)


class TensorRTBackend(_TensorRTBase):
    """Profiles with TensorRT (`dld profile --backend tensorrt`)."""

    name = "tensorrt"
    spec_kind = TrtProfileSpec.KIND

    def run(self, spec: ActivitySpec, reporter: Reporter) -> Report:
        if not isinstance(spec, TrtProfileSpec):
            raise SpecError(f"kind: the tensorrt backend runs {self.spec_kind!r} specs, not {spec.KIND!r}")
        return profile_tensorrt(spec, reporter, load_runtime(spec.settings))


class TensorRTExportBackend(_TensorRTBase):
    """Builds TensorRT engines (`dld export-engine`)."""

    name = "tensorrt-export"
    spec_kind = TrtBuildSpec.KIND

    def run(self, spec: ActivitySpec, reporter: Reporter) -> Report:
        if not isinstance(spec, TrtBuildSpec):
            raise SpecError(f"kind: the tensorrt-export backend runs {self.spec_kind!r} specs, not {spec.KIND!r}")
        return export_engine(spec, reporter, load_runtime(spec.settings))


def _gpu(settings: TrtSettings) -> dict[str, Any]:
    return device_info(settings.device)


def _engine(spec: TrtBuildSpec | TrtProfileSpec, runtime: TrtRuntime, reporter: Reporter) -> tuple[TrtEngine, Any]:
    """The engine (built, or the prebuilt one) and its build plan (None for a prebuilt engine)."""
    attrs = read_model_attributes(spec.model)
    gpu = str(_gpu(spec.settings).get("gpu", ""))
    cache = timing_cache_for(spec.settings, runtime.version, None if gpu.startswith("unavailable") else gpu)
    cache.parent.mkdir(parents=True, exist_ok=True)
    plan = plan_for(spec, attrs, str(cache))
    if plan is None:
        assert isinstance(spec, TrtProfileSpec) and spec.profiler.prebuilt_engine
        reporter.log(f"loading the prebuilt engine {spec.profiler.prebuilt_engine}")
        return runtime.load(spec.profiler.prebuilt_engine, spec.settings.plugins), None
    for note in plan.notes:
        reporter.log(note, "warning")
    reporter.progress(0.05, "building engine")
    return runtime.build(spec.model, plan, reporter), plan


def _graph(engine: TrtEngine, reporter: Reporter) -> EngineGraph | None:
    try:
        return engine_graph_from_json(engine.layer_information(), "engine inspector")
    except EngineGraphError as error:
        reporter.log(f"no layer information ({error}): was the engine built without detailed metadata?", "warning")
        return None


def _index(model: str) -> OnnxIndex:
    return OnnxIndex.from_model(onnx.load(model, load_external_data=False))


def _run_info(spec: TrtBuildSpec | TrtProfileSpec, runtime: TrtRuntime, engine: TrtEngine, plan: Any) -> RunInfo:
    gpu = _gpu(spec.settings)
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
        model=Path(spec.model).stem,
        model_path=spec.model,
        backend="tensorrt",
        provider=device,
        device=device,
        optimization=f"builder optimization level {spec.settings.optimization_level}" if plan is not None else "",
        settings=settings,
        device_memory_bytes=engine.device_memory_bytes,
    )


def _system(runtime: TrtRuntime, settings: TrtSettings) -> dict[str, Any]:
    return {**system_info(), **_gpu(settings), "tensorrt": runtime.version, "tensorrt_runtime": runtime.name}


def export_engine(spec: TrtBuildSpec, reporter: Reporter, runtime: TrtRuntime) -> Report:
    engine, plan = _engine(spec, runtime, reporter)
    reporter.progress(0.8, "writing engine")
    target = Path(spec.engine_path())
    partial = target.with_name(f".{target.name}.partial")
    partial.write_bytes(engine.serialize())
    os.replace(partial, target)
    graph = _graph(engine, reporter) if spec.settings.save_metadata else None
    if spec.metadata and graph is not None:
        write_json_atomic(spec.metadata, engine.layer_information())
    layers = trt_layers(graph, [], _index(spec.model)) if graph is not None else []
    run = _run_info(spec, runtime, engine, plan)
    run.settings.update(engine_file=str(target), metadata_file=spec.metadata)
    engine.close()
    return build_report(run, [], layers, system=_system(runtime, spec.settings))


def _measure(
    engine: TrtEngine, shapes: dict[str, tuple[int, ...]], spec: TrtProfileSpec, profiled: bool
) -> list[PassTimes]:
    profiler = spec.profiler
    runs = engine.run(
        shapes, profiler.warmup + profiler.iterations, profiled, not profiler.hide_non_compute, profiler.seed
    )
    return runs[profiler.warmup :]  # warm-up passes are never reported


def profile_tensorrt(spec: TrtProfileSpec, reporter: Reporter, runtime: TrtRuntime) -> Report:
    reporter.progress(0.0, "loading")
    engine, plan = _engine(spec, runtime, reporter)
    graph = _graph(engine, reporter)
    profiles = plan.profiles if plan is not None else build_shapes(read_model_attributes(spec.model), None)
    shapes = {name: profile.opt for name, profile in profiles.items()}  # the seed: opt sizes for random inputs
    metrics: list[MetricSeries] = []
    with ExitStack() as stack:
        if spec.profiler.lock_clocks:
            stack.enter_context(locked_clocks(spec.settings.device, reporter.log))
        reporter.progress(0.3, "measuring")
        plain = _measure(engine, shapes, spec, profiled=False)
        reporter.progress(0.6, "profiling")
        sampler = _start_sampler(spec, reporter)
        anchor = (time.time_ns() / 1000.0, time.perf_counter())
        try:
            profiled = _measure(engine, shapes, spec, profiled=True)
        finally:
            if sampler is not None:
                sampler.stop()
    passes_ms = [p.wall_ms for p in plain]
    profiled_ms = [p.wall_ms for p in profiled]
    median = layer_pass_index(passes_ms, profiled_ms)
    layers: list[LayerRecord] = trt_layers(graph, profiled, _index(spec.model))
    if sampler is not None:
        metrics = sampler.series(anchor[0] + (profiled[median].start - anchor[1]) * 1e6)
        for note in sampler.notes:
            reporter.log(note, "warning")
    reporter.progress(0.95, "building report")
    run = _run_info(spec, runtime, engine, plan)
    engine.close()
    return build_report(
        run,
        passes_ms,
        layers,
        timeline=trt_timeline(layers, profiled[median], median),
        median_layer_pass=median,
        profiled_passes_ms=profiled_ms,
        warmup_passes=spec.profiler.warmup,
        system=_system(runtime, spec.settings),
        gpu_metrics=metrics,
    )


def _start_sampler(spec: TrtProfileSpec, reporter: Reporter) -> MetricsSampler | None:
    if not spec.profiler.gpu_metrics:
        return None
    sampler = MetricsSampler(spec.settings.device, spec.profiler.sampling_ms)
    try:
        sampler.start()
    except UnavailableError as error:
        reporter.log(f"GPU metrics: {error}", "warning")
        return None
    return sampler
