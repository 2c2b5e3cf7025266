"""NVML's word on other processes on a sweep point's GPU, and the point's peak memory.

Exclusivity among dld's own runs is the scheduler's (`activities.scheduler`, `activities.host_locks`: one run per
GPU on a host, whoever starts it); what NVML adds is the processes dld did not start.
`GpuWatch` reads NVML's compute and graphics process lists of a point's GPU before the run (another process there:
warn, wait until it leaves, or fail) and every quarter second during it (recorded, and the run is stopped under
"fail"), and keeps the worker's peak GPU memory. Inside containers NVML may report host PIDs: when the worker's own
PID is not in the list, the one process that appeared after the launch is taken as the worker.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu.nvml import Gpu, Nvml

POLL_S = 0.25


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
