"""NVML's word on other processes on a GPU run's GPU, and the run's peak GPU memory: asked by the scheduler for every
GPU run it starts on this host (the panels, `dld.*`, the CLI, sweep points), once the run holds its GPU.

Exclusivity among dld's own runs is the scheduler's (`scheduler.py`, `host_locks.py`: one run per GPU on a host,
whoever starts it); what NVML adds is the processes dld did not start (another user's job, a notebook holding a CUDA
context), which move a measurement as much as a neighbour run did. `GpuWatch` reads NVML's compute and graphics
process lists of the run's GPU before its worker starts (another process there: warn, wait until it leaves, or
fail, as the run's `ForeignPolicy` says: "warn" unless its front door says otherwise, a sweep's `foreign` setting)
and every quarter second during it (logged as a warning, recorded; under "fail" the run stops and fails saying so),
and keeps the worker's peak GPU memory. What it saw comes home in the report's system table (`gpu_exclusivity`: the
GPU, its UUID, the policy, the PIDs there before, every foreign PID seen, the samples taken). Inside containers
NVML may report host PIDs: when the worker's own PID is not in the list, the one process that appeared after the
launch is taken as the worker. A run inside another (`within`: the analysis's own profile) ignores the worker of
the run it is part of. Not watched: runs on another machine (NVML here sees this host's GPUs only), session kinds
(open for hours; what they measure, they measure in runs of their own), CPU runs, a host without NVML.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.activities.gpu.nvml import Gpu, Nvml, visible_gpus
from dld_jupyter.activities.spec import ActivitySpec

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


POLICIES = ("warn", "wait", "fail")


@dataclass(frozen=True)
class ForeignPolicy:
    """What a GPU run does about another process on its GPU: measure anyway and say so ("warn"), wait up to `wait_s`
    for it to leave ("wait"), or not measure ("fail": also when one appears during the run)."""

    policy: str = "warn"
    wait_s: float = 60.0

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise SpecError(f"foreign: {self.policy!r} is not one of {', '.join(map(repr, POLICIES))}")


WARN = ForeignPolicy()


def watch_for(spec: ActivitySpec, local: bool, policy: ForeignPolicy = WARN,
              ignore: Collection[int] = ()) -> GpuWatch | None:
    """The watch of a run of `spec` (`local`: on this host), or None when it has nothing to watch (see the module
    docstring); `ignore`: PIDs of dld's own that may be on the GPU (the worker of the run it is part of)."""
    device = spec.device_key()
    if not local or spec.INTERACTIVE or not device.startswith("cuda:"):
        return None
    index = int(device.removeprefix("cuda:"))
    gpu = next((g for g in visible_gpus() if g.cuda_index == index), None)  # none: no NVML, or CUDA says why
    return GpuWatch(gpu, policy.policy, policy.wait_s, ignore=frozenset(ignore)) if gpu is not None else None


@dataclass
class GpuWatch:
    """Foreign processes on one GPU before and during a run, and the run's peak GPU memory; see the module doc."""

    gpu: Gpu
    policy: str  # "warn" | "wait" | "fail"
    wait_s: float = 60.0
    log: Callable[[str], None] = print
    ignore: frozenset[int] = frozenset()  # dld's own PIDs that may be there (the run this one is part of)
    before: dict[int, int] = field(default_factory=dict)
    foreign: set[int] = field(default_factory=set)
    appeared: list[str] = field(default_factory=list)  # what was said of processes that appeared during the run
    samples: int = 0
    peak_bytes: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _processes(self) -> dict[int, int]:
        return {pid: used for pid, used in gpu_processes(self.gpu.nvml_index).items() if pid not in self.ignore}

    def check_before(self, cancelled: Callable[[], bool]) -> None:
        """Apply the policy to processes already on the GPU; RuntimeError under "fail" (or "wait" timing out)."""
        deadline = time.monotonic() + self.wait_s
        self.before = self._processes()
        while self.before and self.policy == "wait" and time.monotonic() < deadline and not cancelled():
            time.sleep(0.5)
            self.before = self._processes()
        if not self.before or cancelled():
            return
        self.foreign |= set(self.before)
        what = f"GPU {self.gpu.cuda_index} ({self.gpu.uuid}) is used by other processes: PIDs {sorted(self.before)}"
        if self.policy == "warn":
            self.log(f"{what}; measuring anyway (foreign='warn'), the times may be off")
            return
        waited = f" after waiting {self.wait_s:.0f} s" if self.policy == "wait" else ""
        raise RuntimeError(f"{what}{waited}; free the GPU or pass foreign='warn'")

    @property
    def failed(self) -> str | None:
        """Why the run fails under "fail" (a process appeared during it), or None."""
        if self.policy == "fail" and self.appeared:
            return "; ".join(self.appeared) + " (foreign='fail')"
        return None

    def start(self, worker_pid: Callable[[], int | None], on_foreign: Callable[[str], None]) -> None:
        self._thread = threading.Thread(target=self._loop, args=(worker_pid, on_foreign), daemon=True)
        self._thread.start()

    def _loop(self, worker_pid: Callable[[], int | None], on_foreign: Callable[[str], None]) -> None:
        reported: set[int] = set(self.foreign)
        while not self._stop.wait(POLL_S):
            with contextlib.suppress(UnavailableError):
                now = self._processes()
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
                    message = (f"another process appeared on GPU {self.gpu.cuda_index} during the run: "
                               f"PIDs {sorted(fresh)}")
                    self.appeared.append(message)
                    on_foreign(message)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def record(self) -> dict[str, Any]:
        return {"gpu": self.gpu.cuda_index, "uuid": self.gpu.uuid, "policy": self.policy,
                "before": sorted(self.before), "foreign": sorted(self.foreign), "samples": self.samples}

    def finish(self) -> dict[str, Any]:
        """Stop watching (the worker has exited) and say what was seen, for the report's system table."""
        self.stop()
        return {"gpu_exclusivity": self.record()}


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
