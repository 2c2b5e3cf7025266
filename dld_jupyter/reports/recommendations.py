"""Recommendations grounded in a report's own numbers (seed 004 "Recommendations Panel": problem + advice).

Each rule looks at the data, and fires only with a reason computed from it (counts, times, shares), so the user
can check it. Thresholds are module constants, named for what they guard.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dld_jupyter.report_format.capabilities import BUILD_PRECISION, PROVIDER
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.iterations import idle_gaps
from dld_jupyter.reports.dashboard.kernels import KERNEL, TC_ELIGIBLE, kernel_pass_ms, kernels_of, median_pass
from dld_jupyter.reports.stats import layer_sum_ms, time_by_type

OVERHEAD_SHARE = 5.0  # % of layer time in reformats/copies/NoOps worth removing
DOMINANT_TYPE_SHARE = 50.0  # % of layer time in one layer type
DOMINANT_LAYER_SHARE = 20.0  # % of layer time in one layer
PROFILING_OVERHEAD_SHARE = 10.0  # % the per-node profiler adds to the median pass
OUTSIDE_LAYERS_SHARE = 20.0  # % of the pass spent outside any layer
FEW_PASSES = 10
TENSOR_CORE_SHARE = 50.0  # % of eligible ops' kernel time on Tensor Cores below which FP16 is worth trying
HOST_BOUND_SHARE = 20.0  # % of the median pass the GPU idles waiting for the host
LOW_PRECISION = frozenset({"FP16", "BF16", "FP8", "INT8", "INT4", "FP4"})


@dataclass(frozen=True)
class Recommendation:
    id: str  # stable rule id, e.g. "fp32-layers"
    severity: str  # "warning" (likely costs time) or "info"
    problem: str  # what the data shows, with its numbers
    advice: str  # what to try
    layers: list[int] = field(default_factory=list)  # positions in report.layers it concerns


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def _fp32_layers(report: Report) -> Recommendation | None:
    if not report.capabilities.has(BUILD_PRECISION):  # FP32 layers left by a build that could lower them
        return None
    build = str(report.summary.settings.get("build_options", {}).get("Precision", ""))
    low = [i for i, layer in enumerate(report.layers) if layer.precision in LOW_PRECISION]
    if not low and "FP16" not in build.upper():
        return None  # reduced precision was not enabled: FP32 is what was asked for
    fp32 = [i for i, layer in enumerate(report.layers) if layer.precision == "FP32" and not layer.overhead]
    if not fp32:
        return None
    ms = sum(report.layers[i].median_ms for i in fp32)
    names = ", ".join(report.layers[i].name for i in fp32[:3]) + (", ..." if len(fp32) > 3 else "")
    return Recommendation(
        "fp32-layers",
        "warning",
        f"{len(fp32)} compute layer(s) take FP32 inputs ({ms:.3f} ms, {_pct(ms, layer_sum_ms(report)):.1f}% of "
        f"layer time) while {len(low)} layer(s) run in reduced precision: {names}.",
        "Layers next to the network inputs/outputs stay FP32 when the I/O is FP32: try trtexec "
        "--inputIOFormats/--outputIOFormats with fp16. Elsewhere, check the verbose build log for why no FP16 "
        "tactic was chosen (unsupported layer, precision constraints, or FP32 being faster).",
        fp32,
    )


def _overhead(report: Report) -> Recommendation | None:
    over = [i for i, layer in enumerate(report.layers) if layer.overhead]
    ms = sum(report.layers[i].median_ms for i in over)
    share = _pct(ms, layer_sum_ms(report))
    if share <= OVERHEAD_SHARE:
        return None
    return Recommendation(
        "overhead-share",
        "warning",
        f"Reformats, copies and NoOps take {ms:.3f} ms, {share:.1f}% of layer time ({len(over)} layers; "
        f"limit {OVERHEAD_SHARE:.0f}%).",
        "Reformats appear where neighbouring layers want different precisions or layouts: keep one precision "
        "through the network (mixed FP32/FP16 forces conversions) and prefer channel counts that are multiples "
        "of 8 (FP16) or 32 (INT8). Copies between devices mean some layers run elsewhere.",
        over,
    )


def _dominant_type(report: Report) -> Recommendation | None:
    types = time_by_type(report)
    if len(types) < 2:
        return None
    top = max(types, key=lambda t: t.total_ms)
    if top.total_percent <= DOMINANT_TYPE_SHARE:
        return None
    members = [i for i, layer in enumerate(report.layers) if layer.type == top.type]
    return Recommendation(
        "dominant-type",
        "info",
        f"{top.type} layers take {top.total_percent:.1f}% of layer time ({top.count} layers, {top.total_ms:.3f} ms).",
        f"Optimize {top.type} first: all other layer types together account for only "
        f"{100 - top.total_percent:.1f}%, so no change elsewhere can save more.",
        members,
    )


def _dominant_layer(report: Report) -> Recommendation | None:
    if len(report.layers) < 2:
        return None
    pos = max(range(len(report.layers)), key=lambda i: report.layers[i].median_ms)
    layer = report.layers[pos]
    share = _pct(layer.median_ms, layer_sum_ms(report))
    if share <= DOMINANT_LAYER_SHARE:
        return None
    return Recommendation(
        "dominant-layer",
        "info",
        f"One layer, {layer.name} ({layer.type}), takes {share:.1f}% of layer time ({layer.median_ms:.3f} ms).",
        "Look at this layer's shapes and precision first; the table's name link opens its ONNX node(s).",
        [pos],
    )


def _unstable(report: Report) -> Recommendation | None:
    s = report.summary
    if s.stable:
        return None
    return Recommendation(
        "unstable-passes",
        "warning",
        f"The passes are unstable: {s.stability_note or 'flagged by the profiler'} (min {s.min_ms:.3f}, "
        f"median {s.median_ms:.3f}, p90 {s.p90_ms:.3f}, max {s.max_ms:.3f} ms).",
        "Re-run with more passes and warm-up, on an otherwise idle machine (other processes, clock boost and "
        "thermal throttling move timings); compare reports only when both are stable.",
    )


def _few_passes(report: Report) -> Recommendation | None:
    if not report.passes_ms or len(report.passes_ms) >= FEW_PASSES:
        return None
    return Recommendation(
        "few-passes",
        "info",
        f"Only {len(report.passes_ms)} measured pass(es).",
        f"Profile at least {FEW_PASSES} passes so the median and spread mean something.",
    )


def _profiling_overhead(report: Report) -> Recommendation | None:
    extra = report.summary.profiling_overhead_ms
    base = report.summary.median_ms - (extra or 0.0)
    if extra is None or report.summary.overhead_within_noise or base <= 0:
        return None
    if _pct(extra, base) <= PROFILING_OVERHEAD_SHARE:
        return None
    return Recommendation(
        "profiling-overhead",
        "info",
        f"Per-node profiling made the median pass {extra:.3f} ms ({_pct(extra, base):.1f}%) slower than without it.",
        "Layer times include the profiler's own cost: trust their ratios more than their sum, and quote the "
        "pass time measured without per-node profiling.",
    )


def _outside_layers(report: Report) -> Recommendation | None:
    median, inside = report.summary.median_ms, layer_sum_ms(report)
    outside = median - inside
    if not report.layers or median <= 0 or _pct(outside, median) <= OUTSIDE_LAYERS_SHARE:
        return None
    return Recommendation(
        "outside-layers",
        "info",
        f"{outside:.3f} ms ({_pct(outside, median):.1f}%) of the median pass is outside any layer (pass "
        f"{median:.3f} ms, layers {inside:.3f} ms).",
        "That time goes to input/output copies, framework overhead and synchronisation: batch more work per "
        "call, keep inputs on the device (I/O binding), or try CUDA graphs.",
    )


def _cpu_fallback(report: Report) -> Recommendation | None:
    main = report.summary.provider
    if not (report.capabilities.has(PROVIDER) and report.capabilities.on_gpu):
        return None
    cpu = [i for i, layer in enumerate(report.layers) if layer.provider.startswith("CPU")]
    if not cpu:
        return None
    ms = sum(report.layers[i].median_ms for i in cpu)
    return Recommendation(
        "cpu-fallback",
        "warning",
        f"{len(cpu)} layer(s) ran on CPUExecutionProvider although the session asked for {main} "
        f"({ms:.3f} ms, {_pct(ms, layer_sum_ms(report)):.1f}% of layer time).",
        f"Each fallback adds device-host copies. Check which operators {main} lacks for these layers (the "
        "ONNX Runtime verbose log names them) and replace them, or accept them if they are cheap shape ops.",
        cpu,
    )


def _gpu_available(report: Report) -> bool:
    system = report.system
    providers = system.get("available_providers", [])
    return bool(system.get("gpus") or system.get("gpu")) or (
        isinstance(providers, list)
        and any(p in providers for p in ("CUDAExecutionProvider", "TensorrtExecutionProvider"))
    )


def _cpu_with_gpu(report: Report) -> Recommendation | None:
    if report.capabilities.device_kind != "cpu":
        return None
    if not _gpu_available(report):
        return None
    return Recommendation(
        "cpu-with-gpu",
        "info",
        f"The model ran on {report.summary.provider} ({report.summary.median_ms:.3f} ms) while this machine "
        "reports a GPU.",
        "Profile with the CUDA execution provider (or TensorRT) to see what the GPU gives.",
    )


def _tensor_cores(report: Report) -> Recommendation | None:
    """Kernel records: eligible ops (Conv, MatMul, ...) whose kernels mostly avoid Tensor Cores."""
    kernels = [k for k in kernels_of(report) if k.kind == KERNEL and 0 <= k.layer < len(report.layers)
               and report.layers[k.layer].type in TC_ELIGIBLE]
    total = sum(k.duration_ms for k in kernels)
    tc = sum(k.duration_ms for k in kernels if k.tensor_core)
    if total <= 0 or _pct(tc, total) >= TENSOR_CORE_SHARE:
        return None
    slow = sorted({k.layer for k in kernels if not k.tensor_core})
    by_name: dict[str, float] = {}
    for k in kernels:
        if not k.tensor_core:
            by_name[k.name] = by_name.get(k.name, 0.0) + k.duration_ms
    worst = max(by_name, key=lambda name: by_name[name])
    fp32 = [i for i in slow if report.layers[i].precision in ("FP32", "FP64")]
    advice = ("FP32 matrix products and convolutions run on CUDA cores: convert the model to FP16 (the Designer's "
              "FP16 conversion) or allow TF32 in the runtime, and keep channel counts multiples of 8."
              if fp32 else
              "These ops already take reduced precision: the time outside Tensor Cores goes to layout conversions "
              "(NCHW to NHWC) and element-wise kernels inside them. Try the NHWC layout (ONNX Runtime CUDA "
              "prefer_nhwc), channel counts that are multiples of 8, or TensorRT, which fuses them.")
    return Recommendation(
        "tensor-core-use",
        "warning",
        f"Tensor Core eligible ops spend {total - tc:.3f} ms of {total:.3f} ms kernel time "
        f"({100 - _pct(tc, total):.1f}%) in kernels without Tensor Cores ({len(slow)} ops, {len(fp32)} of them "
        f"FP32); the largest: {worst[:80]} ({by_name[worst]:.3f} ms).",
        advice,
        slow,
    )


def _host_bound(report: Report) -> Recommendation | None:
    """Kernel records: the GPU idles waiting for launches for a large share of the median pass."""
    median = median_pass(report)
    run = [k for k in kernels_of(report) if k.pass_index in (None, median)]
    if not run:
        return None
    length = max(kernel_pass_ms(report, median), max(k.end_ms for k in run))
    starts = {event.layer: event.start_ms for event in report.timeline if event.layer >= 0}
    gaps = idle_gaps(run, length, [k.launch_ms if k.launch_ms is not None else starts.get(k.layer) for k in run])
    host = sum(g.duration_ms for g in gaps if g.bound == "host")
    if _pct(host, length) <= HOST_BOUND_SHARE:
        return None
    extra = report.summary.profiling_overhead_ms
    caveat = (f"; per-node profiling added {extra:.3f} ms to this pass, part of that wait"
              if extra is not None and extra > 0 and not report.summary.overhead_within_noise else "")
    own = "passes_ms" in report.kernel_capture  # kernel passes of their own, CUPTI's cost in their wall time
    profiled = report.summary.profiled_median_ms
    if own and profiled and length > profiled:
        caveat += (f"; recording kernels (CUPTI) made this pass {length:.3f} ms against {profiled:.3f} ms without, "
                   "part of that wait")
    which = "median kernel" if own else "profiled median"
    return Recommendation(
        "host-bound",
        "warning",
        f"The GPU waits for the host {host:.3f} ms of the {length:.3f} ms {which} pass "
        f"({_pct(host, length):.1f}%, {sum(g.bound == 'host' for g in gaps)} gaps){caveat}.",
        "Launches do not keep up with the GPU: batch more work per call, fuse small ops (graph optimizations on), "
        "keep inputs on the device (I/O binding) or capture the pass in a CUDA graph.",
    )


RULES: tuple[Callable[[Report], Recommendation | None], ...] = (
    _fp32_layers,
    _tensor_cores,
    _host_bound,
    _cpu_fallback,
    _overhead,
    _unstable,
    _outside_layers,
    _profiling_overhead,
    _cpu_with_gpu,
    _few_passes,
    _dominant_type,
    _dominant_layer,
)


def recommend(report: Report) -> list[Recommendation]:
    """The recommendations that apply to `report`, warnings first."""
    found = [r for r in (rule(report) for rule in RULES) if r is not None]
    return sorted(found, key=lambda r: r.severity != "warning")
