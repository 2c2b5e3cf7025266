"""Lock GPU clocks to base for comparable layer times (seed 000 "Lock Clocks to Base"), always restored."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu.nvml import Nvml


@contextmanager
def locked_clocks(index: int, log: Callable[[str], None]) -> Iterator[int]:
    """Lock graphics clocks to base (NVML's TDP clock limit); yields the graphics clock read right after.

    Drivers without the symbolic TDP limit get the default applications clock instead. Raises UnavailableError
    when NVML or the permission (root) is missing. The reset runs in `finally`, so a failing run, an exception or
    a cancellation (SIGTERM, raised as SystemExit by the worker) never leaves clocks locked.
    """
    with Nvml() as nv:
        handle = nv.handle(index)
        lib = nv.lib
        try:
            tdp = lib.NVML_CLOCK_LIMIT_ID_TDP
            lib.nvmlDeviceSetGpuLockedClocks(handle, tdp, tdp)
        except Exception:
            try:
                base = int(lib.nvmlDeviceGetDefaultApplicationsClock(handle, lib.NVML_CLOCK_GRAPHICS))
                lib.nvmlDeviceSetGpuLockedClocks(handle, base, base)
            except Exception as error:
                raise UnavailableError(f"cannot lock GPU clocks ({error}); run as root or unset lock_clocks") from error
        log(f"GPU {index} graphics clocks locked to base")
        try:
            yield int(lib.nvmlDeviceGetClockInfo(handle, lib.NVML_CLOCK_GRAPHICS))
        finally:
            try:
                # Read under load, before the reset: right after locking an idle GPU reads its idle clock.
                mhz = int(lib.nvmlDeviceGetClockInfo(handle, lib.NVML_CLOCK_GRAPHICS))
                lib.nvmlDeviceResetGpuLockedClocks(handle)
                log(f"GPU {index} ran at {mhz} MHz while locked; clocks restored")
            except Exception as error:  # report, never mask the run's own outcome
                log(f"could not reset locked clocks on GPU {index}: {error} (run `nvidia-smi -rgc`)")
