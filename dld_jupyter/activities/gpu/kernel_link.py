"""Tie each GPU activity CUPTI recorded to the pass and the layer (ONNX Runtime node) that launched it.

CUPTI gives every kernel, memcpy and memset the correlation id of the runtime/driver API call that launched it, and
that call's host start time; ONNX Runtime's profiler gives each node's host window. A launch that starts inside
exactly one node window of a pass belongs to that node's layer. Launches before the first node of a pass belong to
the pass's input-copy row and after its last node to its output-copy row (when the layer table has them); a launch
between nodes, or inside two overlapping windows (the parallel executor), is left unlinked and counted, never
guessed. The two clocks are aligned by paired reads (`kernel_records`); `refine_offset` then corrects the few
microseconds such a pairing can be off by, choosing the shift that puts the most launches inside node windows.

Pure: plain records in, report records out; unit-tested on CPU with hand-built records.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dld_jupyter.activities.gpu.tensor_core_names import is_tensor_core_kernel
from dld_jupyter.report_format.model import KernelRecord

# Shifts tried by `refine_offset` (ns): the paired-read alignment was within a few µs on the H100.
REFINE_RANGE_NS = 50_000
REFINE_STEP_NS = 500
REFINE_SAMPLE = 4_000  # launches looked at when refining (enough for a stable count, fast in Python)


@dataclass(frozen=True)
class GpuActivity:
    """A CUPTI kernel, memcpy or memset record, times in CUPTI's clock (ns)."""

    kind: str  # "kernel" | "memcpy" | "memset"
    name: str
    start_ns: int
    end_ns: int
    correlation_id: int
    stream: int = 0
    grid: tuple[int, int, int] = (0, 0, 0)
    block: tuple[int, int, int] = (0, 0, 0)
    registers: int = 0
    shared_memory_bytes: int = 0
    bytes: int = 0
    copy_kind: str = ""


@dataclass(frozen=True)
class ApiCall:
    """A CUDA runtime or driver API call CUPTI recorded (CUPTI's clock, ns)."""

    correlation_id: int
    start_ns: int
    end_ns: int
    thread: int = 0


@dataclass(frozen=True)
class HostWindow:
    """One execution of a layer's node on the host (host wall clock, ns since the epoch)."""

    layer: int
    start_ns: int
    end_ns: int


@dataclass
class PassWindow:
    """One measured profiled pass on the host (wall clock ns): its node windows sorted by start."""

    start_ns: int
    end_ns: int
    windows: list[HostWindow] = field(default_factory=list)
    before_layer: int = -1  # the layer row of launches before the first node (input copies), -1 when none
    after_layer: int = -1  # the layer row of launches after the last node (output copies), -1 when none

    def __post_init__(self) -> None:
        self.windows.sort(key=lambda w: w.start_ns)
        self._starts = [w.start_ns for w in self.windows]
        self._longest = max((w.end_ns - w.start_ns for w in self.windows), default=0)
        self._last_end = max((w.end_ns for w in self.windows), default=0)

    def containing(self, at_ns: int) -> list[int]:
        """Layers whose windows hold `at_ns` (several only where windows overlap)."""
        found: list[int] = []
        for position in range(bisect.bisect_right(self._starts, at_ns) - 1, -1, -1):
            window = self.windows[position]
            if at_ns - window.start_ns > self._longest:
                break
            if at_ns <= window.end_ns:
                found.append(window.layer)
        return found

    def layer_at(self, at_ns: int) -> tuple[int, str]:
        """(layer, how): how is "linked", "ambiguous", "before", "after" or "unlinked"."""
        layers = self.containing(at_ns)
        if len(layers) == 1:
            return layers[0], "linked"
        if layers:
            return -1, "ambiguous"
        if not self.windows or at_ns < self.windows[0].start_ns:
            return self.before_layer, "before"
        if at_ns > self._last_end:
            return self.after_layer, "after"
        return -1, "unlinked"


def refine_offset(launches_ns: Sequence[int], passes: Sequence[PassWindow], offset_ns: int) -> int:
    """The clock offset (CUPTI → host ns) near `offset_ns` that puts the most launches inside exactly one node
    window; ties keep the shift closest to the measured offset. When no launch falls between or across windows at
    the measured offset (the usual case) it is kept; otherwise shifts are tried coarse, then fine around the best."""
    step = max(1, len(launches_ns) // REFINE_SAMPLE)
    sample = sorted(launches_ns[::step])
    starts = [p.start_ns for p in passes]

    def found(shift: int) -> tuple[int, int]:
        """(launches inside exactly one window, launches left unlinked or ambiguous) at `shift`."""
        inside = astray = 0
        for launch in sample:
            at = launch + offset_ns + shift
            index = bisect.bisect_right(starts, at) - 1
            if index >= 0 and at <= passes[index].end_ns:
                how = passes[index].layer_at(at)[1]
                inside += how == "linked"
                astray += how in ("unlinked", "ambiguous")
        return inside, astray

    if found(0)[1] == 0:
        return offset_ns
    coarse = REFINE_STEP_NS * 10
    best = max(sorted(range(-REFINE_RANGE_NS, REFINE_RANGE_NS + 1, coarse), key=abs), key=lambda s: found(s)[0])
    fine = sorted(range(best - coarse, best + coarse + 1, REFINE_STEP_NS), key=abs)
    return offset_ns + max(fine, key=lambda s: found(s)[0])  # max keeps the first best: the smallest |shift|


def _record(activity: GpuActivity, pass_index: int, origin_ns: int, offset_ns: int, launch: ApiCall | None,
            layer: int) -> KernelRecord:
    kernel = activity.kind == "kernel"
    return KernelRecord(
        kind=activity.kind,
        name=activity.name,
        pass_index=pass_index,
        start_ms=(activity.start_ns + offset_ns - origin_ns) / 1e6,
        duration_ms=max(0, activity.end_ns - activity.start_ns) / 1e6,
        layer=layer,
        stream=activity.stream,
        launch_ms=None if launch is None else (launch.start_ns + offset_ns - origin_ns) / 1e6,
        correlation_id=activity.correlation_id,
        grid=list(activity.grid) if kernel else [],
        block=list(activity.block) if kernel else [],
        registers=activity.registers,
        shared_memory_bytes=activity.shared_memory_bytes,
        bytes=activity.bytes,
        copy_kind=activity.copy_kind,
        tensor_core=kernel and is_tensor_core_kernel(activity.name),
    )


def link_activities(
    activities: Sequence[GpuActivity],
    calls: Sequence[ApiCall],
    passes: Sequence[PassWindow],
    offset_ns: int,
    refine: bool = True,
) -> tuple[list[KernelRecord], dict[str, Any]]:
    """Kernel records of the activities that ran in `passes` (others, e.g. warm-up passes, are dropped), each
    tied to its pass and layer; and the counts that say how well that went (see docs/report-format.md)."""
    by_id = {call.correlation_id: call for call in calls}
    passes = sorted(passes, key=lambda p: p.start_ns)
    launched = [by_id[a.correlation_id].start_ns for a in activities if a.correlation_id in by_id]
    measured = offset_ns
    if refine and launched and passes:
        offset_ns = refine_offset(launched, passes, offset_ns)
    starts = [p.start_ns for p in passes]
    records: list[KernelRecord] = []
    counts = {"linked": 0, "ambiguous": 0, "unlinked": 0, "copies_linked": 0}

    def pass_of(at_ns: int, until_next: bool) -> int:
        index = bisect.bisect_right(starts, at_ns) - 1
        if index < 0:
            return -1
        if until_next or at_ns <= passes[index].end_ns:
            return index
        return -1

    for activity in sorted(activities, key=lambda a: a.start_ns):
        launch = by_id.get(activity.correlation_id)
        if launch is not None:
            index = pass_of(launch.start_ns + offset_ns, until_next=False)
        else:  # no launch record: the pass whose time holds the GPU start (its work ends before the next starts)
            index = pass_of(activity.start_ns + offset_ns, until_next=True)
        if index < 0 or (launch is None and activity.start_ns + offset_ns > passes[-1].end_ns + 10**9):
            continue
        window = passes[index]
        layer, how = (-1, "unlinked") if launch is None else window.layer_at(launch.start_ns + offset_ns)
        if activity.kind == "kernel":
            counts["linked" if how == "linked" else "ambiguous" if how == "ambiguous" else "unlinked"] += 1
        elif layer >= 0:
            counts["copies_linked"] += 1
        records.append(_record(activity, index, window.start_ns, offset_ns, launch, layer))
    summary: dict[str, Any] = {
        "records": len(records),
        "kernels": sum(1 for r in records if r.kind == "kernel"),
        **counts,
        "clock_offset_ns": offset_ns,
        "clock_refinement_ns": offset_ns - measured,
    }
    return records, summary


def keep_passes(records: list[KernelRecord], median: int, limit: int) -> tuple[list[KernelRecord], list[int]]:
    """At most `limit` records: whole passes, the median pass first, then the passes nearest it."""
    per_pass: dict[int, int] = {}
    for record in records:
        per_pass[record.pass_index] = per_pass.get(record.pass_index, 0) + 1
    kept: set[int] = set()
    total = 0
    nearest: Callable[[int], tuple[int, int]] = lambda p: (abs(p - median), p)  # noqa: E731
    for index in sorted(per_pass, key=nearest):
        if total + per_pass[index] > limit and kept:
            break
        kept.add(index)
        total += per_pass[index]
    return [r for r in records if r.pass_index in kept], sorted(kept)
