"""Kernel records of an ONNX Runtime CUDA run: CUPTI recording during the kernel passes, tied to their layers.

The recorder (`activities.gpu.kernel_records`) runs only during the kernel passes, which the profile kind runs on
the profiled session after its measured profiled passes (so those, and the layer table, never carry CUPTI's cost);
once ORT's profile is parsed, each measured kernel pass becomes a `PassWindow` (ORT's times are µs from
`get_profiling_start_time_ns`, on the host wall clock) whose node windows carry the position of their layer in the
layer table, and `kernel_link` ties every activity to its pass and layer. Without `cupti-python` the run goes on and
says why kernels are missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu.kernel_link import HostWindow, PassWindow, keep_passes, link_activities
from dld_jupyter.activities.gpu.kernel_records import KernelRecorder
from dld_jupyter.activities.reporter import Reporter
from dld_jupyter.activities.runtimes.onnxruntime.report import COPY_ROWS
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.runtimes.onnxruntime.trace import RunTrace
from dld_jupyter.report_format.builder import LayerRecord
from dld_jupyter.report_format.model import KernelRecord

# Reports stay loadable in a browser: past this many records only whole passes nearest the median are kept.
KERNEL_RECORD_LIMIT = 50_000


def start_recorder(spec: OrtProfileSpec, reporter: Reporter) -> KernelRecorder | None:
    """A started CUPTI recorder for a CUDA run that asks for kernel records; None otherwise, or when CUPTI cannot
    record here (logged)."""
    if spec.provider != "cuda" or not spec.kernel_records:
        return None
    recorder = KernelRecorder()
    try:
        recorder.start()
    except UnavailableError as error:
        reporter.log(f"kernel records: {error}; the report has layer times only", "warning")
        return None
    return recorder


def pass_windows(
    runs: Sequence[RunTrace], start_ns: int, layers: Sequence[LayerRecord], layer_of: Callable[[str], str]
) -> list[PassWindow]:
    """One window per measured run, its node windows tied to the position of their layer in `layers`."""
    position = {record.name: index for index, record in enumerate(layers)}
    before, after = position.get(COPY_ROWS[0], -1), position.get(COPY_ROWS[1], -1)

    def ns(us: float) -> int:
        return start_ns + round(us * 1000.0)

    return [
        PassWindow(
            ns(run.start_us),
            ns(run.start_us + run.dur_us),
            [
                HostWindow(position.get(layer_of(node.name), -1), ns(node.start_us), ns(node.start_us + node.dur_us))
                for node in run.nodes
            ],
            before,
            after,
        )
        for run in runs
    ]


def link_recorded(
    recorder: KernelRecorder,
    windows: list[PassWindow],
    median: int,
    limit: int = KERNEL_RECORD_LIMIT,
    passes_ms: Sequence[float] = (),
) -> tuple[list[KernelRecord], dict[str, Any]]:
    """The kernel records of the measured kernel passes (`windows`, their wall times `passes_ms`) and the report's
    `kernel_capture` object."""
    recorder.stop()  # stopped already after the kernel passes: this only makes sure every buffer is in
    records, counts = link_activities(recorder.activities, recorder.calls, windows, recorder.offset_ns)
    kept, kept_passes = keep_passes(records, median, limit)
    capture: dict[str, Any] = {
        "source": "cupti",
        "cupti_version": recorder.version,
        "series": "kernel",
        "passes": len(windows),
        "passes_ms": list(passes_ms),
        "median_pass": median,
        **counts,
    }
    if len(kept_passes) < len({r.pass_index for r in records}):
        capture["kept_passes"] = kept_passes
        capture["note"] = f"{len(records)} records: kept the {len(kept)} of the passes nearest the median"
    if recorder.errors:
        capture["errors"] = recorder.errors[:10]
    return kept, capture
