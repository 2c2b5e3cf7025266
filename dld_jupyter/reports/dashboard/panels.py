"""The dashboard's panels for one report over an aggregation range (seed 004 4.1): `dashboard(report, start, stop)`.

Why: one computation of GPU utilization, the resource breakdown, kernel time and Tensor Core efficiency, the
performance and iteration summaries, the top ops, the system configuration and the recommendations, which every
front door renders. Each panel that cannot be computed from this report is listed in `absent` with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dld_jupyter.report_format.capabilities import HOST_MS
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.iterations import (
    Gap,
    Iteration,
    Range,
    aggregation_range,
    by_pass,
    idle_gaps,
    iterations,
    pass_of,
    union_ms,
)
from dld_jupyter.reports.dashboard.kernels import (
    KERNEL,
    MEMORY,
    TC_ELIGIBLE,
    Kernel,
    absence,
    kernel_pass_ms,
    kernels_of,
    median_pass,
)
from dld_jupyter.reports.dashboard.tables import Table, counted, ops_table
from dld_jupyter.reports.recommendations import Recommendation, recommend
from dld_jupyter.reports.stats import layer_sum_ms

GUIDANCE = (
    "Tensor Cores run FP16/BF16/TF32/FP8/INT8 matrix products and convolutions: convert the model to FP16 "
    "(Designer > FP16 conversion) or let TensorRT pick reduced precision to use them.",
    "Tensor Core kernels want channel and feature counts that are multiples of 8 (FP16) or 16 (INT8).",
    "Idle time that is host-bound means the GPU waits for launches: larger batches, fewer small ops, I/O binding "
    "and CUDA graphs keep it busy. GPU-bound gaps are waits on copies or synchronisation.",
    "Read more: NVIDIA Deep Learning Performance Guide, docs.nvidia.com/deeplearning/performance/.",
)

# A run with no GPU: the Tensor Core advice above does not apply; what moves CPU time does.
CPU_GUIDANCE = (
    "This run used the CPU: GPU and Tensor Core figures do not apply. Profile with the CUDA provider on a GPU "
    "(or a remote GPU target) to see kernels, Tensor Core use and idle time.",
    "On the CPU, ONNX Runtime's intra-op threads (the profile's Intra-op threads setting) and its graph "
    "optimizations move op time most; the Top Ops table ranks ops by their CPU time.",
    "Quantization helps CPUs too: an INT8 (QDQ) copy of the model uses the VNNI or AMX instructions of CPUs that "
    "have them; profile both and compare the reports.",
)


@dataclass(frozen=True)
class Share:
    label: str
    ms: float
    percent: float


@dataclass
class Dashboard:
    title: str
    range: Range
    iterations: list[Iteration]
    warmup_passes: int
    summary: list[tuple[str, str]]  # Performance Summary rows (label, value)
    system: list[tuple[str, str]]
    utilization: list[Share] = field(default_factory=list)  # Using GPU / Idle GPU (ms only from kernel records)
    utilization_source: str = ""
    breakdown: list[Share] = field(default_factory=list)
    kernel_time: list[Share] = field(default_factory=list)  # Tensor Core kernels / memory / other kernels
    tc_efficiency: float | None = None  # % of eligible ops' kernel time in Tensor Core kernels
    idle: list[Gap] = field(default_factory=list)
    top_ops: Table | None = None
    top_ops_time: str = ""  # "GPU ms" (kernels or TensorRT layers) or "CPU ms"
    recommendations: list[Recommendation] = field(default_factory=list)
    guidance: tuple[str, ...] = GUIDANCE
    absent: dict[str, str] = field(default_factory=dict)  # panel -> why it is not shown
    kernels: list[Kernel] = field(default_factory=list)

    def idle_ms(self, bound: str) -> float:
        return sum(g.duration_ms for g in self.idle if g.bound == bound)


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def _shares(parts: Sequence[tuple[str, float]], whole: float) -> list[Share]:
    return [Share(label, ms, _pct(ms, whole)) for label, ms in parts]


def _launches(report: Report, kernels: Sequence[Kernel]) -> list[float | None]:
    """Host launch time of each kernel: its own, else the host start of its op in the median pass."""
    starts = {event.layer: event.start_ms for event in report.timeline if event.layer >= 0}
    median = median_pass(report)
    return [k.launch_ms if k.launch_ms is not None else
            starts.get(k.layer) if pass_of(k, median) == median else None for k in kernels]


def _gpu_panels(board: Dashboard, report: Report, kernels: list[Kernel]) -> None:
    mine, _ = counted(report, kernels, board.range)
    if not mine:
        board.absent["utilization"] = board.absent["breakdown"] = board.absent["kernel_time"] = (
            f"the kernel records cover passes outside the aggregation range {board.range.start}..{board.range.stop}")
        return
    median = median_pass(report)
    wall = busy = tc = compute = 0.0
    gaps: list[Gap] = []
    for index, run in sorted(by_pass(report, mine).items()):
        length = max(kernel_pass_ms(report, index), max(k.end_ms for k in run))
        wall += length
        spans = [(k.start_ms, k.end_ms) for k in run]
        busy += union_ms(spans)
        tc += union_ms([(k.start_ms, k.end_ms) for k in run if k.tensor_core])
        compute += union_ms([(k.start_ms, k.end_ms) for k in run if k.kind == KERNEL])
        gaps += idle_gaps(run, length, _launches(report, run))
    board.idle = gaps
    board.utilization = _shares([("Using GPU", busy), ("Idle GPU", wall - busy)], wall)
    counted_passes = len({pass_of(k, median) for k in mine})
    board.utilization_source = (f"kernel records: GPU busy time over {counted_passes} passes, {wall:.3f} ms in all "
                                + ("(kernel passes, CUPTI on)" if "passes_ms" in report.kernel_capture else
                                   "(profiled passes, each taken as the profiled median pass)"))
    host, waits = board.idle_ms("host"), board.idle_ms("gpu")
    board.breakdown = _shares([("Tensor Core kernels", tc), ("Other kernels", compute - tc),
                               ("Memory copies", busy - compute), ("Host/CPU (GPU waits for the host)", host),
                               ("Idle (GPU-bound waits)", waits)], wall)
    summed = [("Using Tensor Cores", sum(k.duration_ms for k in mine if k.tensor_core)),
              ("Memory", sum(k.duration_ms for k in mine if k.kind == MEMORY)),
              ("All other kernels", sum(k.duration_ms for k in mine if k.kind == KERNEL and not k.tensor_core))]
    board.kernel_time = _shares(summed, sum(ms for _, ms in summed))
    eligible = [k for k in mine if k.kind == KERNEL and 0 <= k.layer < len(report.layers)
                and report.layers[k.layer].type in TC_ELIGIBLE]
    eligible_ms = sum(k.duration_ms for k in eligible)
    if eligible_ms > 0:
        board.tc_efficiency = _pct(sum(k.duration_ms for k in eligible if k.tensor_core), eligible_ms)
    else:
        board.absent["tc_efficiency"] = "no kernel ran for a Tensor Core eligible op (Conv, MatMul, Gemm, ...)"


def _metric_utilization(board: Dashboard, report: Report, why: str) -> None:
    """A CUDA report without kernel records: NVML's sampled SM utilization, said to be that."""
    series = next((s for s in report.gpu_metrics if s.name == "sm_utilization" and s.values), None)
    if series is None:
        board.absent["utilization"] = f"{why}; and no NVML utilization was sampled"
    else:
        using = sum(series.values) / len(series.values)
        board.utilization = _shares([("Using GPU", using), ("Idle GPU", 100.0 - using)], 100.0)
        board.utilization_source = (f"NVML SM utilization, mean of {len(series.values)} sample(s) over the run "
                                    "(not kernel records)")
    board.absent["breakdown"] = board.absent["kernel_time"] = board.absent["tc_efficiency"] = why
    board.absent["idle"] = why


def _cpu_panels(board: Dashboard, report: Report, why: str) -> None:
    board.guidance = CPU_GUIDANCE
    for panel in ("utilization", "kernel_time", "tc_efficiency", "idle"):
        board.absent[panel] = why
    pass_ms = report.summary.profiled_median_ms or report.summary.median_ms
    ops = layer_sum_ms(report)
    board.breakdown = _shares([("Host/CPU (op time)", ops), ("Other (outside ops)", max(pass_ms - ops, 0.0))],
                              max(pass_ms, ops))


def _system(report: Report, kernels: Sequence[Kernel]) -> list[tuple[str, str]]:
    s, system = report.summary, report.system
    raw = system.get("libraries")
    libraries: dict[str, object] = raw if isinstance(raw, dict) else {}
    gpus = system.get("gpus")
    names = [str(g.get("name", g)) if isinstance(g, dict) else str(g) for g in gpus] if isinstance(gpus, list) else (
        [str(system["gpu"])] if system.get("gpu") else [])
    devices = sorted({k.device for k in kernels})
    rows = [("Profile Name", s.model), ("Backend", f"{s.backend} ({s.provider})"),
            ("GPU Count", str(len(devices) or len(names)) if names or devices else "0 (no GPU used)"),
            ("GPU Name(s)", ", ".join(names) or "none"), ("CPU Model", str(system.get("cpu", ""))),
            ("GPU Driver Version", str(system.get("driver", ""))),
            ("CUDA Version", str(system.get("cuda_driver", system.get("cuda", "")))),
            ("cuDNN Version", str(system.get("cudnn", ""))), ("Host", str(system.get("host", "")))]
    rows += [(f"{name} version", str(version)) for name, version in sorted(libraries.items())]
    return [(label, value) for label, value in rows if value]


def ranges(numbers: Sequence[int]) -> str:
    """Sorted pass numbers as runs: [0, 1, 2, 3, 7, 9, 10] -> "0-3, 7, 9, 10" (200 recorded passes are one run)."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a}-{b}" for a, b in runs)


def dashboard(report: Report, start: int | None = None, stop: int | None = None) -> Dashboard:
    """The dashboard of `report` over passes start..stop (0-based, inclusive; all measured passes by default)."""
    chosen = aggregation_range(report, start, stop)
    kernels = kernels_of(report)
    passes = report.passes_ms[chosen.start:chosen.stop + 1]
    wall = sum(passes)
    board = Dashboard(report.summary.model, chosen, iterations(report, kernels, chosen), report.summary.warmup_passes,
                      [], _system(report, kernels), kernels=kernels)
    why = absence(report)
    if kernels:
        _gpu_panels(board, report, kernels)
    elif why.startswith("this run used"):
        _cpu_panels(board, report, why)
    else:
        _metric_utilization(board, report, why)
    ops = ops_table(report, kernels, chosen)
    host_times = report.capabilities.has(HOST_MS)  # else the layer times are the GPU's (a TensorRT engine's)
    board.top_ops_time = "GPU ms" if kernels or not host_times else "CPU ms"
    top = ops.sort(board.top_ops_time)
    board.top_ops = Table("top_ops", top.columns, top.rows[:10])
    if not kernels and host_times:
        board.absent["top_gpu_ops"] = f"{why}; the top ops are ranked by CPU (host) time instead"
    using = next((s.percent for s in board.utilization if s.label == "Using GPU"), None)
    board.summary = [
        ("Wall Clock Time", f"{wall:.3f} ms"), ("Tensor Core Kernel Efficiency",
                                                "-" if board.tc_efficiency is None else f"{board.tc_efficiency:.1f} %"),
        ("GPU Utilization", "-" if using is None else f"{using:.1f} %"),
        ("Total Iterations", f"{len(report.passes_ms)} (+{report.summary.warmup_passes} warm-up)"),
        ("Profiled Iterations", str(chosen.count)), ("Start Iteration", str(chosen.start)),
        ("Stop Iteration", str(chosen.stop)),
        ("Average Iteration Time", f"{wall / len(passes):.3f} ms" if passes else "-"),
    ]
    if kernels:
        recorded = sorted({pass_of(k, median_pass(report)) for k in kernels})
        counted_passes = [p for p in recorded if p in chosen]
        board.summary.append(("Passes with kernel records", f"{ranges(recorded)} "
                              f"({len(counted_passes)} counted; kernel figures come from these)"))
    board.recommendations = recommend(report)
    return board
