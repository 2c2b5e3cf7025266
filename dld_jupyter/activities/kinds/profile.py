"""The profile activity, for every runtime: the measured loop, warm-up and GPU-metric sampling live here once.

A run opens a session of the spec's runtime (`runtimes.base`) and times two series on the same inputs:
1. plain passes: warm-up, then N passes. Their median is the number users trust (`summary.median_ms`), since
   per-layer profiling costs time of its own;
2. profiled passes: warm-up, then N passes with layer times; NVML/GPM metrics are sampled during these N passes
   (warm-up excluded) and aligned on the median profiled pass. The difference of the two medians is the overhead;
3. kernel passes, when the session records GPU activity (CUDA with kernel records): one warm-up, then
   min(N, KERNEL_PASSES) profiled passes with CUPTI on. They come last and apart because CUPTI costs the host time
   per launch (BERT-base b1 on an H200: profiled median 6.80 ms without, 12.25 ms with), which the layer table must
   not carry; their kernels are tied to layers by the same nodes' host windows in their own passes.
GPU clocks are locked around every series when asked. Each pass is timed by the runtime (host perf_counter around
one pass, outputs fetched or synchronized); warm-up passes are never reported. On a GPU each warm-up also lasts at
least GPU_WARMUP_MS (trtexec's default warm-up is 200 ms): an H200 idles at 345 MHz, and a sweep's CUDA point that
followed a CPU point (the GPU idle for its ~15 s) measured ResNet-18 b32 3.6 % slower than back to back after a
count-only warm-up of 36 ms.

`profile_spec(model, runtime, **options)` is the one place a profile spec is built, whichever front door asks (the
API, the CLI, the Profile panel, a sweep point): four builders each branched on "tensorrt" before. It is also where
a report without an output path gets its name: the default, numbered so that no run replaces a report that exists
or that another run is writing (`report_names`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, fields
from typing import Any, Literal, overload

from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.activities.gpu.clocks import locked_clocks
from dld_jupyter.activities.gpu.nvml import MetricsSampler, nvml_index
from dld_jupyter.activities.gpu.tensor_core_names import tensor_core_check
from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.report_names import default_report
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes import runtime_for, runtime_named
from dld_jupyter.activities.runtimes.base import Feeds, LayerTable, PassTimes, Session
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings, TrtSettings, grouped
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtProfileSpec
from dld_jupyter.activities.spec import ActivitySpec, Measurement, default_report_path
from dld_jupyter.report_format.builder import build_report, layer_pass_index
from dld_jupyter.report_format.model import MetricSeries, Report

# Passes recorded with CUPTI after the profiled series (at most the measured count): enough for a median pass and a
# spread of kernel times, few enough that a long run does not double (reports keep at most KERNEL_RECORD_LIMIT).
KERNEL_PASSES = 10
# Least time a GPU warm-up lasts, whatever its pass count (clocks ramp up from idle); CPU runs warm up by count only.
GPU_WARMUP_MS = 500.0


class PhaseProgress:
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


def warm_up(run: Callable[[], PassTimes], count: int, least_ms: float, on_pass: Callable[[int], None]) -> int:
    """`count` untimed passes, then more until `least_ms` have passed since the first; returns how many ran."""
    started = time.perf_counter()
    timed_passes(run, count, on_pass)
    done = count
    while (time.perf_counter() - started) * 1000.0 < least_ms:
        run()
        done += 1
    return done


def timed_passes(run: Callable[[], PassTimes], count: int, on_pass: Callable[[int], None]) -> list[PassTimes]:
    """`count` passes of `run`, each timed by the runtime; `on_pass(index)` after each one, outside its timing."""
    passes: list[PassTimes] = []
    for index in range(count):
        passes.append(run())
        on_pass(index)
    return passes


@dataclass
class Measured:
    """The series of a profile run: the passes users trust, the profiled ones, the metrics sampled during them and
    the kernel passes (CUPTI on; empty when the session records no GPU activity)."""

    plain: list[PassTimes]
    profiled: list[PassTimes]
    median: int  # index of the profiled pass whose layers the report shows (`layer_pass_index`)
    metrics: list[MetricSeries] = field(default_factory=list)
    kernels: list[PassTimes] = field(default_factory=list)
    kernel_median: int = 0  # index into `kernels` of the pass whose GPU activity the report draws


def start_sampler(measurement: Measurement, reporter: Reporter) -> MetricsSampler | None:
    """NVML/GPM sampling of the run's GPU, or None (a CPU run, metrics off, or NVML unavailable: logged)."""
    if measurement.device is None or not measurement.gpu_metrics:
        return None
    sampler = MetricsSampler(measurement.device, measurement.sampling_ms)
    try:
        sampler.start()
    except UnavailableError as error:
        reporter.log(f"GPU metrics: {error}", "warning")
        return None
    return sampler


def kernel_series(
    session: Session, count: int, run: Callable[[], PassTimes], progress: PhaseProgress
) -> list[PassTimes]:
    """One warm-up and `count` passes recording GPU activity, or [] when the session records none; recording stops
    before this returns, so nothing run afterwards pays for it."""
    if count < 1 or not session.record_kernels(True):
        return []
    try:
        timed_passes(run, 1, progress.phase("kernel warm-up", 0.9, 0.91, 1))
        return timed_passes(run, count, progress.phase("recording kernels", 0.91, 0.95, count))
    finally:
        session.record_kernels(False)


def measure(session: Session, measurement: Measurement, reporter: Reporter, feeds: Feeds | None = None) -> Measured:
    """The measured loop: warm-up + plain passes, warm-up + profiled passes sampled for GPU metrics, then the kernel
    passes (when the session records GPU activity)."""
    progress = PhaseProgress(reporter)
    warmup, iterations = measurement.warmup, measurement.iterations
    with ExitStack() as stack:
        if measurement.lock_clocks and measurement.device is not None:
            # Clocks are NVML's: the spec's CUDA index is mapped through CUDA_VISIBLE_DEVICES (gpu.visible).
            stack.enter_context(locked_clocks(nvml_index(measurement.device), reporter.log))
        elif measurement.lock_clocks:
            reporter.log("lock_clocks applies to GPU runs only: ignored on the CPU", "warning")

        def plain_pass() -> PassTimes:
            return session.run(feeds, False)

        def profiled_pass() -> PassTimes:
            return session.run(feeds, True)

        least = GPU_WARMUP_MS if measurement.device is not None else 0.0
        warm_up(plain_pass, warmup, least, progress.phase("warm-up", 0.05, 0.1, max(warmup, 1)))
        plain = timed_passes(plain_pass, iterations, progress.phase("measuring", 0.1, 0.5, iterations))
        reporter.progress(0.5, "starting profiler")
        warm_up(profiled_pass, warmup, least, progress.phase("warm-up", 0.55, 0.6, max(warmup, 1)))
        sampler = start_sampler(measurement, reporter)
        anchor = (time.time_ns() / 1000.0, time.perf_counter())
        try:
            profiled = timed_passes(profiled_pass, iterations, progress.phase("profiling", 0.6, 0.9, iterations))
        finally:
            if sampler is not None:
                sampler.stop()
        kernels = kernel_series(session, min(iterations, KERNEL_PASSES), profiled_pass, progress)
    median = layer_pass_index([p.wall_ms for p in plain], [p.wall_ms for p in profiled])
    metrics: list[MetricSeries] = []
    if sampler is not None:
        metrics = sampler.series(anchor[0] + (profiled[median].start - anchor[1]) * 1e6)
        for note in sampler.notes:
            reporter.log(note, "warning")
    kernel_median = layer_pass_index([p.wall_ms for p in kernels]) if kernels else 0
    return Measured(plain, profiled, median, metrics, kernels, kernel_median)


def with_tensor_core_check(table: LayerTable, metrics: list[MetricSeries]) -> dict[str, Any]:
    """The table's kernel capture with the Tensor Core name rule checked against GPM's tensor activity."""
    if not table.kernel_capture:
        return {}
    gpm = next((m.values for m in metrics if m.name == "gpm_tensor_activity"), None)
    kernels = [(k.kind, k.duration_ms, k.tensor_core) for k in table.kernels]
    return {**table.kernel_capture, "tensor_core_check": tensor_core_check(kernels, gpm)}


def run_profile(spec: ActivitySpec, reporter: Reporter) -> Report:
    """Profile `spec` with its runtime and return the Report (`report_format.builder`)."""
    measurement = spec.measurement()
    if measurement is None:
        raise SpecError(f"kind: {spec.KIND!r} activities measure nothing; the profile activity cannot run them")
    reporter.progress(0.0, "loading")
    with runtime_for(spec).session(spec.model, spec, reporter) as session:
        measured = measure(session, measurement, reporter)
        reporter.progress(0.95, "analysing")
        table = session.layers(measured.profiled, measured.median, measured.kernels, measured.kernel_median)
        run_info, system = session.describe()
    reporter.progress(0.98, "building report")
    return build_report(
        run_info,
        [p.wall_ms for p in measured.plain],
        table.layers,
        timeline=table.timeline,
        median_layer_pass=measured.median,
        profiled_passes_ms=[p.wall_ms for p in measured.profiled],
        warmup_passes=measurement.warmup,
        removed_nodes=table.removed_nodes,
        removed_reasons=table.removed_reasons or None,
        system=system,
        gpu_metrics=measured.metrics,
        kernels=table.kernels,
        kernel_capture=with_tensor_core_check(table, measured.metrics),
    )


ORT_OPTIONS = tuple(f.name for f in fields(OrtProfileSpec) if f.name not in ("model", "source_document"))


@overload
def profile_spec(model: ModelRef | str | os.PathLike[str], runtime: Literal["onnxruntime"] = ..., *,
                 settings: None = ..., profiler: None = ..., **options: Any) -> OrtProfileSpec: ...


@overload
def profile_spec(model: ModelRef | str | os.PathLike[str], runtime: Literal["tensorrt"], *,
                 settings: TrtSettings | Mapping[str, Any] | None = ...,
                 profiler: ProfilerSettings | Mapping[str, Any] | None = ..., **options: Any) -> TrtProfileSpec: ...


@overload
def profile_spec(model: ModelRef | str | os.PathLike[str], runtime: str, *,
                 settings: TrtSettings | Mapping[str, Any] | None = ...,
                 profiler: ProfilerSettings | Mapping[str, Any] | None = ...,
                 **options: Any) -> OrtProfileSpec | TrtProfileSpec: ...


def profile_spec(
    model: ModelRef | str | os.PathLike[str],
    runtime: str = "onnxruntime",
    *,
    settings: TrtSettings | Mapping[str, Any] | None = None,
    profiler: ProfilerSettings | Mapping[str, Any] | None = None,
    **options: Any,
) -> OrtProfileSpec | TrtProfileSpec:
    """The profile spec of `model` on `runtime` ("onnxruntime" | "tensorrt"): options are OrtProfileSpec fields, or
    for TensorRT `settings=` / `profiler=` groups and their fields given flat (`fp16=True, iterations=50`). Unknown
    options are refused (SpecError naming the known ones) before a copy of unsaved edits is written. The spec reads
    `model.path`; a document's report goes beside its own file and names it (`source_document`), and no output may
    replace that file. Without `output` the report is `<model>.dld-report.json`, or `<model>-2…` when that exists
    or a live run writes it (`report_names`). An unknown runtime is an UnavailableError naming the registered ones."""
    runtime_named(runtime)
    ref = model if isinstance(model, ModelRef) else ModelRef.of(model)
    output = options.pop("output", None) or default_report(_default_report(ref))
    ref.report = output  # before the copy is written: a kept copy of unsaved edits goes beside this report
    if runtime == "tensorrt":
        groups = grouped(options, settings, profiler)  # refused before the copy is written
        spec: OrtProfileSpec | TrtProfileSpec = TrtProfileSpec(
            model=ref.path, output=output, settings=groups[0], profiler=groups[1], source_document=ref.copy_of
        )
    elif runtime == "onnxruntime":
        if settings is not None or profiler is not None:
            raise SpecError("settings, profiler: TensorRT settings; they do not apply to ONNX Runtime")
        unknown = sorted(set(options) - set(ORT_OPTIONS))
        if unknown:
            raise SpecError(f"profile: unknown option(s) {unknown}; known options are {sorted(ORT_OPTIONS)}")
        spec = OrtProfileSpec(model=ref.path, output=output, source_document=ref.copy_of, **options)
    else:
        raise SpecError(f"profile: no profile spec for the runtime {runtime!r}")
    spec.check_outputs([ref.copy_of])  # the report replaces neither the model nor the document's own file
    return spec


def _default_report(ref: ModelRef) -> str:
    """A document's report beside its own file (not beside a copy of its edits); a path's beside it."""
    return ref.default_report if ref.document is not None else default_report_path(ref.path)
