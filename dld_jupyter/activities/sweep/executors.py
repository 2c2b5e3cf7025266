"""Where a sweep's points run: the executor a sweep is given or makes (threads here, a Dask client), and what the
sweep must know of a Dask cluster: whether its scheduler is gone.

Why a module of its own: a Dask client that loses its scheduler cancels every future at once, and the sweep
recorded each point as "cancelled before it started", exited 0 as if the user had cancelled, and Dask's reconnect
loop printed a raw traceback when the process ended (issue 36). `Executing.lost()` tells that apart from a cancel
(the points are failed with "the Dask scheduler at … is gone", which `--resume` completes), and a client the sweep
opened itself (`dask://host:port`) is closed when the sweep ends, its reconnect loop with it, without the traceback.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.gpu.nvml import visible_gpus
from dld_jupyter.activities.sweep.manifest import Manifest

LIVE = ("running", "newly-created")  # distributed.Client.status while it is connected (or about to be)
CLOSE_TIMEOUT_S = 5
QUIET = ("distributed", "distributed.client", "distributed.utils", "distributed.core", "distributed.comm")


@dataclass
class Executing:
    """An executor and what the sweep owes it: `owned` (shut it down at the end), `lock_here` (clocks locked in
    this process for the whole sweep), `client` (a Dask client opened for the sweep, closed at the end)."""

    executor: cf.Executor
    owned: bool = False
    lock_here: bool = False
    client: Any = None
    scheduler: str | None = None  # the Dask scheduler's address, known while it answered

    def lost(self) -> str | None:
        """Why the Dask scheduler is gone ("the Dask scheduler at tcp://… is gone …"), or None while it answers
        (or for an executor that is no Dask client)."""
        client = dask_client(self.executor)
        if client is None or getattr(client, "status", "running") in LIVE:
            return None
        return (f"the Dask scheduler at {self.scheduler or 'its address'} is gone (the client lost its connection; "
                "points running there were stopped)")

    def close(self) -> None:
        """Close the client the sweep opened, quietly: a dead scheduler's reconnect loop would log tracebacks."""
        if self.client is None:
            return
        with _quiet(QUIET), contextlib.suppress(Exception):
            self.client.close(timeout=CLOSE_TIMEOUT_S)
        self.client = None


@contextlib.contextmanager
def _quiet(names: tuple[str, ...]) -> Iterator[None]:
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def dask_client(executor: Any) -> Any:
    """The distributed.Client behind a Dask executor (None for any other executor)."""
    return getattr(executor, "_client", None)


def _address(client: Any) -> str | None:
    with contextlib.suppress(Exception):
        return str(client.scheduler.address)
    return None


def make_executor(spec: str | cf.Executor | None, manifest: Manifest) -> Executing:
    """The executor of `spec`: None/"local" threads here (one per device), "dask" the current client,
    "dask://host:port" a client opened to that scheduler, a distributed.Client, or any Executor."""
    if isinstance(spec, cf.Executor):
        return Executing(spec, scheduler=_address(dask_client(spec)))
    if spec is not None and not isinstance(spec, str):  # a distributed.Client
        return Executing(spec.get_executor(pure=False), scheduler=_address(spec))
    if spec is None or spec == "local":
        points = [p.point for p in manifest.points]
        gpus = len(visible_gpus()) if any(p.uses_gpu for p in points) else 0
        cpu = 1 if any(not p.uses_gpu for p in points) else 0  # the scheduler runs one CPU point at a time anyway
        threads = cf.ThreadPoolExecutor(max_workers=max(1, gpus + cpu), thread_name_prefix="dld-sweep")
        return Executing(threads, owned=True, lock_here=True)
    if spec == "dask" or spec.startswith("dask://"):
        try:
            distributed: Any = importlib.import_module("distributed")
        except ImportError as error:
            raise SpecError("executor='dask' needs distributed: pip install 'dld_jupyter[dask]'") from error
        if spec == "dask":
            try:
                client = distributed.get_client()
            except ValueError as error:
                raise SpecError("executor='dask': no Dask client in this process; create one (distributed.Client(...)) "
                                "or pass executor='dask://host:port'") from error
            return Executing(client.get_executor(pure=False), scheduler=_address(client))
        address = "tcp://" + spec.removeprefix("dask://")
        try:
            client = distributed.Client(address)
        except OSError as error:
            raise SpecError(f"executor {spec}: no Dask scheduler answers at {address} ({error})") from error
        return Executing(client.get_executor(pure=False), client=client, scheduler=address)
    raise SpecError(f"executor: {spec!r} is not 'local', 'dask', 'dask://host:port' or a concurrent.futures.Executor")
