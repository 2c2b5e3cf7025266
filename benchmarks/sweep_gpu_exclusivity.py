"""GPU exclusivity of sweeps on a real GPU host (the lent device): NVML's process lists, a foreign process detected
before and during a run, and the host's lock files (the scheduler's, activities/host_locks.py) giving one GPU to one
holder at a time, its UUID naming the lock. Needs nvidia-ml-py and torch
(only to occupy a GPU from another process). Prints what it saw; exits 1 when a check fails.

    PYTHONPATH=. python benchmarks/sweep_gpu_exclusivity.py
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from dld_jupyter.activities.gpu.nvml import visible_gpus
from dld_jupyter.activities.gpu_watch import GpuWatch, gpu_processes
from dld_jupyter.activities.host_locks import SHARED, HostLocks

HOLD = "import torch,time; x=torch.ones(256*2**20, device='cuda:{i}'); torch.cuda.synchronize(); time.sleep({s})"


def occupy(index: int, seconds: float) -> subprocess.Popen[bytes]:
    """A process holding 1 GiB on GPU `index`, returned once NVML lists one more process there."""
    nvml_index = visible_gpus()[index].nvml_index
    count = len(gpu_processes(nvml_index))
    process = subprocess.Popen([sys.executable, "-c", HOLD.format(i=index, s=seconds)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(gpu_processes(nvml_index)) <= count:
        time.sleep(0.2)
    return process


def main() -> int:
    gpus = visible_gpus()
    print("visible GPUs:", [(g.cuda_index, g.nvml_index, g.uuid) for g in gpus])
    failures = 0
    gpu = gpus[0]
    print("processes on GPU 0 before:", gpu_processes(gpu.nvml_index))
    foreign = occupy(0, 30)
    print("foreign process", foreign.pid, "-> NVML:", gpu_processes(gpu.nvml_index))
    for policy in ("warn", "fail"):
        watch = GpuWatch(gpu, policy, log=lambda m: print("  log:", m))
        try:
            watch.check_before(lambda: False)
            print(f"foreign={policy}: measured anyway, recorded {watch.record()}")
            failures += not watch.foreign
        except RuntimeError as error:
            print(f"foreign={policy}: refused: {error}")
            failures += policy != "fail"
    foreign.kill()
    foreign.wait()
    time.sleep(1.0)
    watch = GpuWatch(gpu, "warn", log=print)
    watch.check_before(lambda: False)  # before the point's worker starts, as in a sweep
    ours = occupy(0, 12)  # stands in for the point's worker
    seen: list[str] = []
    watch.start(lambda: ours.pid, seen.append)
    time.sleep(1.0)
    intruder = occupy(0, 4)
    time.sleep(1.5)
    watch.stop()
    print("during the run:", seen, "| peak GPU memory of ours (MB):", watch.peak_bytes / 2**20)
    failures += not seen or watch.peak_bytes == 0
    for process in (ours, intruder):
        process.kill()
        process.wait()
    locks = HostLocks()
    held: list[str] = []
    overlap: list[str] = []

    def take(name: str) -> None:
        got = None
        while got is None:
            got = locks.try_take("localhost", f"cuda:{gpu.cuda_index}", SHARED)
            if got is None:
                time.sleep(0.05)
        if held:
            overlap.append(name)
        held.append(name)
        time.sleep(0.5)
        held.remove(name)
        print(f"  {name} held {got.names}")
        got.release()

    threads = [threading.Thread(target=take, args=(f"point{i}",)) for i in range(3)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"host locks: 3 holders of one GPU took {time.monotonic() - started:.2f} s, overlaps: {overlap}")
    failures += bool(overlap)
    print("FAILED checks:", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
