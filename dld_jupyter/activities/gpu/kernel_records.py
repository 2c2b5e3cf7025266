"""Record GPU activity with CUPTI (`cupti-python`, the `[gpu]` extra, imported lazily) during profiled passes.

Kernels, memcpy and memset records (name, GPU start/end, grid/block, registers, shared memory, stream) and the
runtime and driver API records that launched them (correlation id, host start) are collected in-process through
CUPTI's activity buffers; `kernel_link` then ties each activity to its pass and layer. CUPTI's timestamps are put on
the host wall clock (`time.time_ns`, the clock of ONNX Runtime's profiler start and of NVML samples) by paired reads.

Without `cupti-python` or a usable CUPTI the recorder says why (`KernelRecorder.start` raises UnavailableError) and
the profile runs on without kernel records.
"""

from __future__ import annotations

import threading
import time
from importlib import metadata
from types import ModuleType
from typing import Any

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu.kernel_link import ApiCall, GpuActivity
from dld_jupyter.activities.gpu.tensor_core_names import demangle
from dld_jupyter.activities.optional import import_optional

BUFFER_BYTES = 8 * 1024 * 1024
CALIBRATION_READS = 15
_COPY_KINDS = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH",
               10: "PtoP"}


def load_cupti() -> ModuleType:
    module = import_optional("cupti.cupti", "cupti-python (pip install 'dld_jupyter[gpu]')")
    return getattr(module, "cupti", module)  # the package re-exports its API as `cupti.cupti`


def _package_version(name: str) -> str:
    """The installed version of `name` ("" when unknown): cupti-python has no version call of its own."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return ""


def clock_offset_ns(read_gpu_clock: Any, reads: int = CALIBRATION_READS) -> int:
    """host wall-clock ns minus CUPTI ns, from the tightest of `reads` host-GPU-host read triples."""
    best: tuple[int, int] | None = None
    for _ in range(reads):
        before = time.time_ns()
        gpu = int(read_gpu_clock())
        after = time.time_ns()
        if best is None or after - before < best[0]:
            best = (after - before, (before + after) // 2 - gpu)
    assert best is not None
    return best[1]


def _triple(record: Any, prefix: str) -> tuple[int, int, int]:
    x, y, z = (int(getattr(record, f"{prefix}_{axis}", 0) or 0) for axis in "xyz")
    return x, y, z


def activity_from(cupti: Any, record: Any) -> GpuActivity | ApiCall | None:
    """A plain record from a CUPTI activity record (valid only inside the buffer callback), or None."""
    kinds = cupti.ActivityKind
    kind = record.kind
    if kind in (kinds.CONCURRENT_KERNEL, kinds.KERNEL):
        shared = int(getattr(record, "static_shared_memory", 0) or 0) + int(
            getattr(record, "dynamic_shared_memory", 0) or 0
        )
        return GpuActivity(
            "kernel", demangle(str(record.name)), int(record.start), int(record.end), int(record.correlation_id),
            int(record.stream_id), _triple(record, "grid"), _triple(record, "block"),
            int(getattr(record, "registers_per_thread", 0) or 0), shared,
        )
    if kind == kinds.MEMCPY:
        direction = _COPY_KINDS.get(int(record.copy_kind), str(record.copy_kind))
        return GpuActivity(
            "memcpy", f"Memcpy {direction}", int(record.start), int(record.end), int(record.correlation_id),
            int(record.stream_id), bytes=int(record.bytes), copy_kind=direction,
        )
    if kind == kinds.MEMSET:
        return GpuActivity(
            "memset", "Memset", int(record.start), int(record.end), int(record.correlation_id),
            int(record.stream_id), bytes=int(record.bytes),
        )
    if kind in (kinds.RUNTIME, kinds.DRIVER):
        return ApiCall(int(record.correlation_id), int(record.start), int(record.end), int(record.thread_id))
    return None


_state: dict[str, Any] = {"active": None, "registered": False}  # CUPTI takes one pair of callbacks per process


def _requested() -> tuple[int, int]:
    return BUFFER_BYTES, 0


def _completed(records: list[Any]) -> None:
    recorder = _state["active"]
    if recorder is not None:  # records flushed after a recorder stopped belong to no run
        recorder.take(records)


class KernelRecorder:
    """`start()` before the profiled passes, `stop()` after them; `activities`/`calls` hold what CUPTI recorded."""

    def __init__(self) -> None:
        self.activities: list[GpuActivity] = []
        self.calls: list[ApiCall] = []
        self.offset_ns = 0
        self.version = ""
        self.errors: list[str] = []
        self._cupti: Any = None
        self._kinds: list[Any] = []
        self._lock = threading.Lock()

    def take(self, records: list[Any]) -> None:
        """Keep the plain form of CUPTI's records (called from CUPTI's buffer-completed callback)."""
        activities: list[GpuActivity] = []
        calls: list[ApiCall] = []
        for record in records:
            try:
                plain = activity_from(self._cupti, record)
            except Exception as error:  # one odd record must not lose the buffer
                self.errors.append(f"record skipped: {error}")
                continue
            if isinstance(plain, GpuActivity):
                activities.append(plain)
            elif isinstance(plain, ApiCall):
                calls.append(plain)
        with self._lock:
            self.activities += activities
            self.calls += calls

    def start(self) -> None:
        cupti = load_cupti()
        self._cupti = cupti
        kinds = cupti.ActivityKind
        try:
            if not _state["registered"]:
                cupti.activity_register_callbacks(_requested, _completed)
                _state["registered"] = True
            _state["active"] = self
            for kind in (kinds.CONCURRENT_KERNEL, kinds.MEMCPY, kinds.MEMSET, kinds.RUNTIME, kinds.DRIVER):
                cupti.activity_enable(kind)
                self._kinds.append(kind)
            self.offset_ns = clock_offset_ns(cupti.get_timestamp)
            self.version = _package_version("cupti-python")
        except Exception as error:
            _state["active"] = None
            self._disable()
            raise UnavailableError(f"CUPTI could not record activity ({error})") from error

    def _disable(self) -> None:
        for kind in self._kinds:
            try:
                self._cupti.activity_disable(kind)
            except Exception as error:
                self.errors.append(f"disable: {error}")
        self._kinds = []

    def stop(self) -> None:
        """Flush every buffer (their records arrive in `_completed`) and stop recording."""
        if self._cupti is None or not self._kinds:
            return
        try:
            self._cupti.activity_flush_all(1)
        finally:
            _state["active"] = None
            self._disable()
            offset = clock_offset_ns(self._cupti.get_timestamp)
            self.offset_ns = (self.offset_ns + offset) // 2  # drift over the run, halved
