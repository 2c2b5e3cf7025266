"""ONNX Runtime profiling (seed 000 "Profiling with ONNX Runtime", measured per seed 003).

One run, two sessions on the same inputs:
1. a plain session: warm-up passes, then N passes timed with perf_counter. Its median pass is the number users
   trust (`summary.median_ms`), since per-node profiling costs time of its own;
2. a profiled session (`enable_profiling`): warm-up, N timed passes; ORT's trace gives per-node times, which are
   reported for its median pass. The difference of the two medians is the profiling overhead.
With optimization on, the optimized model ORT writes maps fused nodes back to their ONNX sources.
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import Any

import onnx

from dld_jupyter.activities.backends.ort_inputs import Feeds, folder_feeds, random_feeds
from dld_jupyter.activities.backends.ort_install import cuda_missing_reason
from dld_jupyter.activities.backends.ort_nodes import map_nodes
from dld_jupyter.activities.backends.ort_report import ort_layers, with_copy_rows, with_host_row
from dld_jupyter.activities.backends.ort_trace import parse_profile
from dld_jupyter.activities.errors import RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.gpu.clocks import locked_clocks
from dld_jupyter.activities.gpu.nvml import MetricsSampler, device_info
from dld_jupyter.activities.optional import import_optional
from dld_jupyter.activities.ort_spec import OrtProfileSpec
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.system import cpu_model, system_info
from dld_jupyter.report_format.builder import RunInfo, build_report, layer_pass_index
from dld_jupyter.report_format.model import MetricSeries, Report

INSTALL_HINT = "pip install onnxruntime (or onnxruntime-gpu for the CUDA provider)"


class OnnxRuntimeBackend:
    """The embedded default backend: runs `OrtProfileSpec`s; onnxruntime is imported only when it runs."""

    name = "onnxruntime"
    spec_kind = OrtProfileSpec.KIND

    def available(self) -> str | None:
        if importlib.util.find_spec("onnxruntime") is None:
            return f"onnxruntime is not installed: {INSTALL_HINT}"
        return None

    def run(self, spec: ActivitySpec, reporter: Reporter) -> Report:
        if not isinstance(spec, OrtProfileSpec):
            raise SpecError(f"kind: the onnxruntime backend runs {self.spec_kind!r} specs, not {spec.KIND!r}")
        return profile_onnxruntime(spec, reporter)


def load_ort() -> ModuleType:
    return import_optional("onnxruntime", "onnxruntime")


def check_provider(ort: ModuleType, spec: OrtProfileSpec) -> None:
    available = list(ort.get_available_providers())
    if spec.ort_provider in available:
        return
    if spec.provider == "cuda":
        raise UnavailableError(cuda_missing_reason(str(ort.__version__), available))
    version = ort.__version__
    raise UnavailableError(f"{spec.ort_provider} is not available in onnxruntime {version}; available: {available}")


def load_model(spec: OrtProfileSpec, reporter: Reporter) -> tuple[onnx.ModelProto, str | bytes]:
    """The model's graph (no weights) and what to hand ORT: its path, or bytes when nodes had to be named."""
    try:
        model = onnx.load(spec.model, load_external_data=False)
    except Exception as error:
        raise SpecError(f"model: {spec.model} is not a readable ONNX model ({error})") from error
    if all(node.name for node in model.graph.node):
        return model, spec.model
    # ORT reports nodes by name: unnamed nodes get "<op>_<index>" names so every layer maps back to a node.
    for index, node in enumerate(model.graph.node):
        node.name = node.name or f"{node.op_type}_{index}"
    reporter.log("some nodes have no name: profiling a copy where they are named <op_type>_<index>", "warning")
    full = onnx.load(spec.model)
    for node, named in zip(full.graph.node, model.graph.node, strict=True):
        node.name = named.name
    return model, full.SerializeToString()


def session_options(ort: ModuleType, spec: OrtProfileSpec, workdir: Path | None) -> Any:
    """Options of the plain session (no `workdir`) or of the profiled one, which also writes the graph it runs:
    fused nodes (optimization on) and the bodies of function ops it inlines (HardSwish, on or off) are mapped
    back to the ONNX nodes through it."""
    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only: warnings would drown the activity log
    level = ort.GraphOptimizationLevel
    options.graph_optimization_level = level.ORT_ENABLE_ALL if spec.optimize else level.ORT_DISABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL  # layer times then add up to the pass
    if spec.threads:
        options.intra_op_num_threads = spec.threads
    if workdir is not None:
        options.enable_profiling = True
        options.profile_file_prefix = str(workdir / "ort_profile")
        options.optimized_model_filepath = str(workdir / "optimized.onnx")
        # Large weights go beside it so models over 2 GB still serialize.
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", "optimized.data")
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    return options


def make_session(ort: ModuleType, source: str | bytes, options: Any, spec: OrtProfileSpec) -> Any:
    providers: list[Any] = [spec.ort_provider]
    if spec.provider == "cuda":
        providers = [(spec.ort_provider, {"device_id": str(spec.device)}), "CPUExecutionProvider"]
    try:
        session = ort.InferenceSession(source, options, providers=providers)
    except Exception as error:
        if spec.provider == "cuda" and "CUDA" in str(error):
            raise RunFailed(f"the CUDA execution provider failed to start: {error}") from error
        raise SpecError(f"model: onnxruntime cannot load {spec.model}: {error}") from error
    if session.get_providers()[0] != spec.ort_provider:  # ORT silently falls back to the CPU
        raise UnavailableError(f"{spec.ort_provider} could not be used; the session got {session.get_providers()}")
    return session


def pass_runner(ort: ModuleType, session: Any, feeds: Feeds, spec: OrtProfileSpec) -> Callable[[], object]:
    """One inference pass. Normally `session.run` from host arrays, copies to and from the device included; with
    `hide_non_compute` on a GPU the inputs are copied to the device once and the outputs stay there (I/O binding),
    so a pass is the model's compute alone (seed 000 "Hide Non-Compute Operations")."""
    if not spec.hide_non_compute:
        return lambda: session.run(None, feeds)
    device = "cuda" if spec.provider == "cuda" else "cpu"
    binding = session.io_binding()
    for name, array in feeds.items():
        binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(array, device, spec.device))
    for output in session.get_outputs():
        binding.bind_output(output.name, device, spec.device)

    def run() -> object:
        session.run_with_iobinding(binding)
        binding.synchronize_outputs()  # the pass ends when the device has finished, as a fetch would wait
        return None

    return run


def timed_passes(
    run: Callable[[], object], count: int, on_pass: Callable[[int], None]
) -> tuple[list[float], list[float]]:
    """Wall time (ms) and perf_counter start of each pass; outputs are fetched, so GPU work has finished."""
    times: list[float] = []
    starts: list[float] = []
    for index in range(count):
        start = time.perf_counter()
        try:
            run()
        except Exception as error:
            raise RunFailed(f"inference failed: {error}") from error
        end = time.perf_counter()
        times.append((end - start) * 1000.0)
        starts.append(start)
        on_pass(index)
    return times, starts


class _Progress:
    """Maps a phase's passes onto its share of the whole activity, sending at most ~50 updates per phase."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter

    def phase(self, name: str, low: float, high: float, count: int) -> Callable[[int], None]:
        self.reporter.progress(low, name)
        step = max(1, count // 50)

        def on_pass(index: int) -> None:
            if (index + 1) % step == 0 or index + 1 == count:
                self.reporter.progress(low + (high - low) * (index + 1) / count, name)

        return on_pass


def _feeds(spec: OrtProfileSpec, graph: onnx.GraphProto) -> Feeds:
    if spec.uses_random_inputs:
        return random_feeds(graph, spec.batch_size, spec.seed)
    assert spec.input_folder is not None
    return folder_feeds(graph, spec.input_folder)


def profile_onnxruntime(spec: OrtProfileSpec, reporter: Reporter) -> Report:
    progress = _Progress(reporter)
    reporter.progress(0.0, "loading")
    ort = load_ort()
    check_provider(ort, spec)
    model, source = load_model(spec, reporter)
    feeds = _feeds(spec, model.graph)
    reporter.log(f"inputs: {', '.join(f'{k} {list(v.shape)} {v.dtype}' for k, v in feeds.items())}")
    gpu = spec.provider == "cuda"
    with ExitStack() as stack:
        if spec.lock_clocks and gpu:
            stack.enter_context(locked_clocks(spec.device, reporter.log))
        elif spec.lock_clocks:
            reporter.log("lock_clocks applies to GPU runs only: ignored on the CPU", "warning")
        if spec.hide_non_compute and not gpu:
            reporter.log("hide_non_compute: a CPU run copies nothing between devices; outputs stay bound", "info")
        plain = make_session(ort, source, session_options(ort, spec, None), spec)
        run = pass_runner(ort, plain, feeds, spec)
        timed_passes(run, spec.warmup, progress.phase("warm-up", 0.05, 0.1, max(spec.warmup, 1)))
        passes, _ = timed_passes(run, spec.iterations, progress.phase("measuring", 0.1, 0.5, spec.iterations))
        del plain, run  # one session in memory at a time

        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dld-ort-")))
        reporter.progress(0.5, "starting profiler")
        profiled = make_session(ort, source, session_options(ort, spec, workdir), spec)
        run = pass_runner(ort, profiled, feeds, spec)
        timed_passes(run, spec.warmup, progress.phase("warm-up", 0.55, 0.6, max(spec.warmup, 1)))
        sampler = _start_sampler(spec, reporter) if gpu else None
        anchor = (time.time_ns() / 1000.0, time.perf_counter())
        try:
            prof_passes, prof_starts = timed_passes(
                run, spec.iterations, progress.phase("profiling", 0.6, 0.95, spec.iterations)
            )
        finally:
            if sampler is not None:
                sampler.stop()
        trace = profiled.end_profiling()
        reporter.progress(0.95, "analysing")
        runs = parse_profile(trace)[-spec.iterations :]  # warm-up runs were profiled too
        if len(runs) != spec.iterations:
            raise RunFailed(f"ORT's profile holds {len(runs)} measured runs, expected {spec.iterations}")
        optimized_path = workdir / "optimized.onnx"
        optimized = onnx.load(str(optimized_path), load_external_data=False) if optimized_path.exists() else None
        if optimized is None:
            reporter.log("ORT did not write the graph it ran: fused layers are not mapped to ONNX nodes", "warning")
        median = layer_pass_index(passes, prof_passes)
        executed = [node.name for run in runs for node in run.nodes]
        node_map = map_nodes(model.graph, optimized.graph if optimized else None, executed)
        layers, timeline = ort_layers(runs, median, lambda name: node_map.sources.get(name, []), node_map.merged.get)
        if gpu and not spec.hide_non_compute:
            layers, timeline = with_copy_rows(runs, median, layers, timeline)
            layers = with_host_row(runs, prof_passes, layers)
        metrics: list[MetricSeries] = []
        if sampler is not None:
            origin_us = anchor[0] + (prof_starts[median] - anchor[1]) * 1e6
            metrics = sampler.series(origin_us)
            for note in sampler.notes:
                reporter.log(note, "warning")
    system = {**system_info(), "providers": list(ort.get_available_providers())}
    if gpu:
        system.update(device_info(spec.device))
    run_info = RunInfo(
        model=Path(spec.source_document or spec.model).stem,  # a kept copy is named after its document
        model_path=spec.model,
        backend="onnxruntime",
        provider=spec.ort_provider,
        device=str(system.get("gpu", "GPU")) if gpu else f"CPU: {cpu_model()}",
        optimization="all" if spec.optimize else "disabled",
        settings={k: v for k, v in spec.to_dict().items() if k != "output"},
    )
    reporter.progress(0.98, "building report")
    return build_report(
        run_info,
        passes,
        layers,
        timeline=timeline,
        median_layer_pass=median,
        profiled_passes_ms=prof_passes,
        warmup_passes=spec.warmup,
        removed_nodes=node_map.removed,
        removed_reasons=node_map.reasons,
        system=system,
        gpu_metrics=metrics,
    )


def _start_sampler(spec: OrtProfileSpec, reporter: Reporter) -> MetricsSampler | None:
    if not spec.gpu_metrics:
        return None
    sampler = MetricsSampler(spec.device, spec.sampling_ms)
    try:
        sampler.start()
    except UnavailableError as error:
        reporter.log(f"GPU metrics: {error}", "warning")
        return None
    return sampler
