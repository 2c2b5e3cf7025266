"""Iterations (the measured passes), the aggregation range the user sets, and where a pass waits.

Why: DLProf aggregates over a start..stop iteration range so warm-up or odd passes can be left out; here iteration k
is the k-th measured pass (its wall time in `report.passes_ms`, measured without per-node profiling) and the k-th
kernel pass (its kernel records: `pass_index` k; CUPTI records in passes of its own after the profiled ones, whose
wall times are `kernel_capture.passes_ms`); the range says which passes count. Idle time is split the way HTA
does: a gap in GPU activity is host-bound when the next activity was launched only after the GPU went idle (the GPU
waited for the host), GPU-bound when it was already queued (waiting on a dependency or synchronisation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.dashboard.kernels import MEMORY, Kernel, median_pass


@dataclass(frozen=True)
class Range:
    """Passes start..stop (0-based, both included) of the measured passes."""

    start: int
    stop: int

    @property
    def count(self) -> int:
        return self.stop - self.start + 1

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and self.start <= index <= self.stop


def iteration_count(report: Report) -> int:
    """Measured passes, or profiled passes with kernel records when there are more of those."""
    profiled = report.kernel_capture.get("passes")
    return max(len(report.passes_ms), profiled if isinstance(profiled, int) else 0)


def aggregation_range(report: Report, start: int | None = None, stop: int | None = None) -> Range:
    """The range of passes that count; all of them by default. Raises ValueError naming the valid range."""
    total = iteration_count(report)
    if total == 0:
        if start not in (None, 0) or stop not in (None, 0):
            raise ValueError("this report lists no measured passes, so no aggregation range can be set")
        return Range(0, -1)
    first = 0 if start is None else start
    last = total - 1 if stop is None else stop
    if not 0 <= first <= last < total:
        raise ValueError(f"aggregation range {first}..{last} is outside the measured passes 0..{total - 1} "
                         "(start must not be after stop)")
    return Range(first, last)


@dataclass(frozen=True)
class Iteration:
    index: int
    duration_ms: float | None  # the measured pass's wall time (None: only a profiled pass has this index)
    in_range: bool
    median: bool  # the pass whose layers (and kernels without a pass index) the report holds
    kernels: int | None  # None: no kernel records for this pass
    tc_kernels: int | None
    gpu_ms: float | None  # summed kernel time
    tc_gpu_ms: float | None


def pass_of(kernel: Kernel, median: int) -> int:
    return median if kernel.pass_index is None else kernel.pass_index


def by_pass(report: Report, kernels: Sequence[Kernel]) -> dict[int, list[Kernel]]:
    """The activities of each pass, in one walk over them (a pass without records is absent)."""
    median = median_pass(report)
    out: dict[int, list[Kernel]] = {}
    for k in kernels:
        out.setdefault(pass_of(k, median), []).append(k)
    return out


def iterations(report: Report, kernels: Sequence[Kernel], chosen: Range) -> list[Iteration]:
    median = median_pass(report)
    passes = by_pass(report, kernels)
    rows = []
    for i in range(iteration_count(report)):
        duration = report.passes_ms[i] if i < len(report.passes_ms) else None
        known = i in passes
        mine = [k for k in passes.get(i, []) if k.kind != MEMORY]
        rows.append(Iteration(
            i, duration, i in chosen, i == median,
            len(mine) if known else None, sum(k.tensor_core for k in mine) if known else None,
            sum(k.duration_ms for k in mine) if known else None,
            sum(k.duration_ms for k in mine if k.tensor_core) if known else None,
        ))
    return rows


def union_ms(intervals: Sequence[tuple[float, float]]) -> float:
    """Length of the union of [start, end) intervals."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


@dataclass(frozen=True)
class Gap:
    start_ms: float
    end_ms: float
    bound: str  # "host" (the GPU waited for a launch) or "gpu" (work was queued: a dependency or sync)

    @property
    def duration_ms(self) -> float:
        return self.end_ms - self.start_ms


def idle_gaps(kernels: Sequence[Kernel], pass_ms: float, launches: Sequence[float | None]) -> list[Gap]:
    """Gaps in GPU activity over one pass [0, pass_ms]; `launches[i]`: host launch time of kernels[i] (or the host
    start of the op that launched it). Before the first activity and after the last the GPU waits on the host."""
    order = sorted(range(len(kernels)), key=lambda i: kernels[i].start_ms)
    gaps, busy_until = [], 0.0
    for i in order:
        kernel = kernels[i]
        if kernel.start_ms > busy_until:
            launch = launches[i]
            queued = launch is not None and launch < busy_until
            gaps.append(Gap(busy_until, kernel.start_ms, "gpu" if queued else "host"))
        busy_until = max(busy_until, kernel.end_ms)
    if pass_ms > busy_until:
        gaps.append(Gap(busy_until, pass_ms, "host"))
    return gaps
