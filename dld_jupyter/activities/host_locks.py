"""What a run holds of its host across processes: lock files every process of the host shares (two kernels, the
CLI, a Dask worker, a sweep), taken by the scheduler for every run it starts.

Two locks, both `flock`s on files of one folder per host (default `<temp dir>/dld-device-locks`):
- the GPU: a GPU run holds `gpu-<id>.lock` exclusively. For a GPU of this host the id is its NVML UUID, so two
  processes that number GPUs differently (`CUDA_VISIBLE_DEVICES`, dask-cuda) still take the same lock for one GPU;
  where NVML cannot name it (a remote target's GPU, a host without NVML) it is the target and the device key.
- the host's cores: `host-<target>.lock`, shared by GPU runs (one launch thread each, on different GPUs they do not
  time each other) and exclusive for CPU runs (ONNX Runtime's CPU provider takes every core; see scheduler.py for
  what that did to a GPU neighbour). Interactive runs (sessions: they compute only when asked) take no host lock.
The kernel releases a `flock` when its holder dies, so a killed process never leaves a device taken. Taking never
blocks: the scheduler tries again while a run waits (`try_take` names the lock another process holds).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import re
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import IO

from dld_jupyter.activities.gpu import visible

LOCAL_TARGETS = ("", "local", "localhost")
SHARED, EXCLUSIVE = "shared", "exclusive"


class Held:
    """The lock files one run holds; `release()` lets them go (idempotent)."""

    def __init__(self, handles: list[IO[bytes]], names: list[str]) -> None:
        self._handles, self.names = handles, names

    def release(self) -> None:
        handles, self._handles = self._handles, []
        for handle in handles:
            with contextlib.suppress(OSError):
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "host"


@functools.lru_cache(maxsize=8)
def _uuids(listing: str | None) -> tuple[str, ...]:
    """The UUIDs of the GPUs CUDA sees under `listing`, in CUDA order (cached: NVML's start costs tens of ms)."""
    from dld_jupyter.activities.gpu.nvml import visible_gpus

    return tuple(gpu.uuid for gpu in visible_gpus())


def gpu_lock_name(target: str, device: str) -> str:
    """The lock file name of GPU `device` ("cuda:1") of `target`: by UUID on this host when NVML names it."""
    if target in LOCAL_TARGETS and device.startswith("cuda:") and device[5:].isdigit():
        uuids = _uuids(visible.listing())
        index = int(device[5:])
        if index < len(uuids):
            return f"gpu-{_slug(uuids[index])}"
    return f"gpu-{_slug(target or 'localhost')}-{_slug(device)}"


def host_lock_name(target: str) -> str:
    return f"host-{_slug('localhost' if target in LOCAL_TARGETS else target)}"


class HostLocks:
    """The lock files of one folder (default: the host's temp dir, so every process of the host shares it)."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else Path(tempfile.gettempdir()) / "dld-device-locks"

    def try_take(self, target: str, device: str, host: str | None, inherited: Collection[str] = ()) -> Held | str:
        """The locks of a run on `device` of `target` (`host`: SHARED, EXCLUSIVE or None for no host lock), all
        or none, except those `inherited` (held by the run it is part of): the path of the lock file another
        process holds now, when one is."""
        wanted: list[tuple[str, int]] = []
        if host is not None:
            wanted.append((host_lock_name(target), fcntl.LOCK_SH if host == SHARED else fcntl.LOCK_EX))
        if device != "cpu":
            wanted.append((gpu_lock_name(target, device), fcntl.LOCK_EX))
        wanted = [(name, mode) for name, mode in wanted if name not in inherited]
        self.folder.mkdir(parents=True, exist_ok=True)
        handles: list[IO[bytes]] = []
        for name, mode in wanted:
            handle = open(self.folder / f"{name}.lock", "ab")  # noqa: SIM115 - kept open while the lock is held
            try:
                fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                Held(handles, []).release()
                return str(self.folder / f"{name}.lock")
            handles.append(handle)
        return Held(handles, [name for name, _ in wanted])
