"""GPU exclusivity for sweeps: one run per GPU on a host, whoever starts it, and NVML's word on other processes.

`DevicePool` hands out a host's devices through `flock` on one lock file per GPU (named by its UUID, so two Dask
workers, two kernels or two sweeps on one host never measure on one GPU at once; the kernel releases a lock when
its holder dies, so a killed worker never leaves a GPU taken). The CPU is one device too: CPU points take turns
unless the sweep lets them overlap. `visible_gpus` follows `CUDA_VISIBLE_DEVICES` the way CUDA does (dask-cuda
gives each worker its own GPU that way): CUDA index i is the i-th listed GPU, found in NVML by index or UUID.

`GpuWatch` reads NVML's compute and graphics process lists of a point's GPU before the run (another process there:
warn, wait until it leaves, or fail) and every quarter second during it (recorded, and the run is stopped under
"fail"), and keeps the worker's peak GPU memory. Inside containers NVML may report host PIDs: when the worker's own
PID is not in the list, the one process that appeared after the launch is taken as the worker.
"""

from __future__ import annotations

import contextlib
import fcntl
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu import visible
from dld_jupyter.activities.gpu.nvml import Nvml

POLL_S = 0.25


@dataclass(frozen=True)
class Gpu:
    cuda_index: int  # the index CUDA (and ONNX Runtime's device_id) uses in this process
    nvml_index: int
    uuid: str


def visible_gpus() -> list[Gpu]:
    """The GPUs this process may use, in CUDA order; [] without NVML or a GPU."""
    try:
        with Nvml() as nv:
            uuids = nv.uuids()
    except UnavailableError:
        return []
    order = visible.cuda_order(visible.listing(), uuids)
    return [Gpu(cuda, index, uuids[index]) for cuda, index in enumerate(order)]


class DevicePool:
    """Exclusive use of a host's devices through lock files in `folder` (default: the temp dir, shared per host)."""

    def __init__(self, folder: str | None = None) -> None:
        self.folder = Path(folder or tempfile.gettempdir()) / "dld-device-locks"
        self.folder.mkdir(parents=True, exist_ok=True)

    def _try(self, name: str) -> IO[bytes] | None:
        handle = open(self.folder / f"{name}.lock", "ab")  # noqa: SIM115 - kept open while the lock is held
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        return handle

    @contextlib.contextmanager
    def acquire(
        self, gpus: list[Gpu] | None, cancelled: Callable[[], bool], exclusive_cpu: bool = True
    ) -> Iterator[Gpu | None]:
        """A free GPU of `gpus` (waiting for one), or the CPU when `gpus` is None; released on exit."""
        names = ["cpu"] if gpus is None else [f"gpu-{gpu.uuid}" for gpu in gpus]
        if gpus is not None and not gpus:
            raise UnavailableError("no GPU is visible here (NVML finds none, or CUDA_VISIBLE_DEVICES hides them)")
        if gpus is None and not exclusive_cpu:
            yield None
            return
        while True:
            for index, name in enumerate(names):
                handle = self._try(name)
                if handle is not None:
                    try:
                        yield None if gpus is None else gpus[index]
                    finally:
                        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
                        handle.close()
                    return
            if cancelled():
                raise InterruptedError("cancelled while waiting for a device")
            time.sleep(0.1)


def gpu_processes(nvml_index: int) -> dict[int, int]:
    """PID -> used GPU memory (bytes; 0 when NVML does not say) of every compute or graphics process on the GPU."""
    with Nvml() as nv:
        lib, handle = nv.lib, nv.handle(nvml_index)
        found: dict[int, int] = {}
        for reader in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
            with contextlib.suppress(Exception):
                for process in getattr(lib, reader)(handle):
                    memory = process.usedGpuMemory
                    found[int(process.pid)] = int(memory) if isinstance(memory, int) and memory > 0 else 0
        return found


@dataclass
class GpuWatch:
    """Foreign processes on one GPU before and during a run, and the run's peak GPU memory; see the module doc."""

    gpu: Gpu
    policy: str  # "warn" | "wait" | "fail"
    wait_s: float = 60.0
    log: Callable[[str], None] = print
    before: dict[int, int] = field(default_factory=dict)
    foreign: set[int] = field(default_factory=set)
    samples: int = 0
    peak_bytes: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def check_before(self, cancelled: Callable[[], bool]) -> None:
        """Apply the policy to processes already on the GPU; RuntimeError under "fail" (or "wait" timing out)."""
        deadline = time.monotonic() + self.wait_s
        self.before = gpu_processes(self.gpu.nvml_index)
        while self.before and self.policy == "wait" and time.monotonic() < deadline and not cancelled():
            time.sleep(0.5)
            self.before = gpu_processes(self.gpu.nvml_index)
        if not self.before:
            return
        self.foreign |= set(self.before)
        what = f"GPU {self.gpu.cuda_index} ({self.gpu.uuid}) is used by other processes: PIDs {sorted(self.before)}"
        if self.policy == "warn":
            self.log(f"{what}; measuring anyway (foreign='warn'), the times may be off")
            return
        waited = f" after waiting {self.wait_s:.0f} s" if self.policy == "wait" else ""
        raise RuntimeError(f"{what}{waited}; free the GPU or pass foreign='warn'")

    def start(self, worker_pid: Callable[[], int | None], on_foreign: Callable[[str], None]) -> None:
        self._thread = threading.Thread(target=self._loop, args=(worker_pid, on_foreign), daemon=True)
        self._thread.start()

    def _loop(self, worker_pid: Callable[[], int | None], on_foreign: Callable[[str], None]) -> None:
        reported: set[int] = set(self.foreign)
        while not self._stop.wait(POLL_S):
            with contextlib.suppress(UnavailableError):
                now = gpu_processes(self.gpu.nvml_index)
                self.samples += 1
                pid = worker_pid()
                new = {p: m for p, m in now.items() if p not in self.before}
                ours = pid if pid in now else (next(iter(new)) if len(new) == 1 else None)
                if ours is not None:
                    self.peak_bytes = max(self.peak_bytes, now.get(ours, 0))
                others = set(now) - {ours} if ours is not None else set(new) - set(list(new)[:1])
                others |= set(now) & set(self.before)
                fresh = others - reported
                if fresh:
                    reported |= fresh
                    self.foreign |= fresh
                    on_foreign(f"another process appeared on GPU {self.gpu.cuda_index} during the run: "
                               f"PIDs {sorted(fresh)}")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def record(self) -> dict[str, Any]:
        return {"gpu": self.gpu.cuda_index, "uuid": self.gpu.uuid, "policy": self.policy,
                "before": sorted(self.before), "foreign": sorted(self.foreign), "samples": self.samples}


def peak_rss_mb(pid: int | None) -> float | None:
    """The process's resident high-water mark (VmHWM) in MB, or None once it is gone."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None
