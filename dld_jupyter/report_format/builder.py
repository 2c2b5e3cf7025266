"""The one assembly of a Report, used by every backend (ONNX Runtime, TensorRT) and importer (ORT trace, trtexec).

Before it, the ONNX Runtime profiler, the ORT trace import and the trtexec import each computed the summary spread,
the per-layer statistics and the percentages in their own way; a fourth copy was due with the TensorRT backend.
A source now hands over what it measured and the builder derives the rest, the same way for all:
- `passes_ms`: wall time of each measured pass → summary min/median/p90/max/mean, the median pass and stability
  (`passes.spread`). With no pass times the pass is the sum of its layers (trtexec without `--exportTimes`).
- `layers`: one `LayerRecord` per layer, in inference order, with its time in every pass it was measured in →
  median (its time in the median pass), mean, min, max and percent of the layer sum. A source that only has
  aggregates (trtexec) gives them as `LayerTimes` instead.
- `timeline`: the events of the median pass (`median_layer_pass` says which pass that is), by layer index.
- `removed_nodes`, `system`, `gpu_metrics`, and the identity of the run (`RunInfo`).
When layers were timed in passes of their own (ONNX Runtime: a profiled session beside the plain one), those passes
are `profiled_passes_ms`: the summary then holds the profiled median and the profiling overhead too.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.report_format.model import KernelRecord, Layer, MetricSeries, Report, Summary, TimelineEvent
from dld_jupyter.report_format.passes import intervals_overlap, median_index, median_interval, spread


@dataclass(frozen=True)
class RunInfo:
    """What was measured and where: the identity half of the summary (see `Summary` for each field)."""

    model: str
    model_path: str
    backend: str
    provider: str
    device: str
    optimization: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    device_memory_bytes: int | None = None


@dataclass(frozen=True)
class LayerTimes:
    """Aggregate times of a layer, for sources that give no per-pass times (trtexec)."""

    median_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float


@dataclass
class LayerRecord:
    """One layer as a source measured it; the builder turns it into a report `Layer`."""

    name: str
    type: str
    times_ms: list[float | None] = field(default_factory=list)  # per measured pass; None: did not run in it
    aggregate: LayerTimes | None = None  # instead of times_ms, when the source only has aggregates
    onnx_nodes: list[str] = field(default_factory=list)
    input_dims: list[list[int | str]] = field(default_factory=list)
    output_dims: list[list[int | str]] = field(default_factory=list)
    precision: str = "N/A"
    provider: str = ""
    stream: int = 0
    overhead: bool = False

    def times(self, median_pass: int) -> LayerTimes:
        """Median (time in the median pass), mean, min and max over the passes it ran in."""
        if self.aggregate is not None:
            return self.aggregate
        ran = [t for t in self.times_ms if t is not None]
        if not ran:
            return LayerTimes(0.0, 0.0, 0.0, 0.0)
        in_median = self.times_ms[median_pass] if median_pass < len(self.times_ms) else None
        return LayerTimes(in_median or 0.0, sum(ran) / len(ran), min(ran), max(ran))


def layer_pass_index(passes_ms: list[float], profiled_passes_ms: list[float] | None = None) -> int:
    """Index of the pass whose layers and timeline are reported: the median of the passes the layers were timed in."""
    return median_index(profiled_passes_ms if profiled_passes_ms is not None else passes_ms)


def build_layers(records: Sequence[LayerRecord], median_pass: int) -> list[Layer]:
    """Report layers in the records' order, with statistics and percent of the layer sum of the median pass."""
    timed = [(record, record.times(median_pass)) for record in records]
    total = sum(times.median_ms for _, times in timed)
    return [
        Layer(
            index=index,
            name=record.name,
            type=record.type,
            onnx_nodes=list(record.onnx_nodes),
            input_dims=record.input_dims,
            output_dims=record.output_dims,
            precision=record.precision,
            provider=record.provider,
            stream=record.stream,
            median_ms=times.median_ms,
            mean_ms=times.mean_ms,
            min_ms=times.min_ms,
            max_ms=times.max_ms,
            ci_ms=_interval(median_interval([t for t in record.times_ms if t is not None])),
            percent=100.0 * times.median_ms / total if total > 0 else 0.0,
            overhead=record.overhead,
        )
        for index, (record, times) in enumerate(timed)
    ]


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    return list(ci) if ci is not None else None


def build_report(
    run: RunInfo,
    passes_ms: list[float],
    layers: Sequence[LayerRecord] = (),
    *,
    timeline: Sequence[TimelineEvent] = (),
    median_layer_pass: int | None = None,
    profiled_passes_ms: list[float] | None = None,
    warmup_passes: int = 0,
    pass_count: int | None = None,
    removed_nodes: Sequence[str] = (),
    removed_reasons: dict[str, str] | None = None,
    system: dict[str, Any] | None = None,
    gpu_metrics: Sequence[MetricSeries] = (),
    kernels: Sequence[KernelRecord] = (),
    kernel_capture: dict[str, Any] | None = None,
) -> Report:
    """A Report from what a backend or importer measured (see the module docstring).

    `median_layer_pass` defaults to `layer_pass_index(passes_ms, profiled_passes_ms)`; `pass_count` is the number of
    measured passes when their times are unknown (trtexec's profile "count" without `--exportTimes`).
    """
    s = spread(passes_ms)
    layer_pass = layer_pass_index(passes_ms, profiled_passes_ms) if median_layer_pass is None else median_layer_pass
    built = build_layers(layers, layer_pass)
    profiled = spread(profiled_passes_ms) if profiled_passes_ms is not None else None
    summary = Summary(
        model=run.model,
        model_path=run.model_path,
        backend=run.backend,
        provider=run.provider,
        device=run.device,
        median_ms=s.median_ms if passes_ms else sum(layer.median_ms for layer in built),
        passes=len(passes_ms) or (pass_count or 0),
        warmup_passes=warmup_passes,
        min_ms=s.min_ms,
        p90_ms=s.p90_ms,
        max_ms=s.max_ms,
        mean_ms=s.mean_ms,
        stable=s.stable,
        stability_note=s.note,
        median_pass_index=s.median_index,
        optimization=run.optimization,
        profiling_overhead_ms=profiled.median_ms - s.median_ms if profiled is not None else None,
        profiled_median_ms=profiled.median_ms if profiled is not None else None,
        median_ci_ms=_interval(s.median_ci),
        profiled_median_ci_ms=_interval(profiled.median_ci) if profiled is not None else None,
        overhead_within_noise=intervals_overlap(s.median_ci, profiled.median_ci) if profiled is not None else None,
        device_memory_bytes=run.device_memory_bytes,
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        settings=dict(run.settings),
    )
    return Report(
        summary=summary,
        passes_ms=list(passes_ms),
        layers=built,
        timeline=list(timeline),
        gpu_metrics=list(gpu_metrics),
        system=dict(system or {}),
        removed_nodes=list(removed_nodes),
        removed_reasons=dict(removed_reasons or {}),
        kernels=list(kernels),
        kernel_capture=dict(kernel_capture or {}),
    )
