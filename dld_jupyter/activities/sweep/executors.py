"""Where a sweep's points run: the executor a sweep is given or makes (threads here, a Dask client), and what the
sweep must know of a Dask cluster: whether its scheduler is gone.

Why a module of its own: a Dask client that loses its scheduler cancels every future at once, and the sweep
recorded each point as "cancelled before it started", exited 0 as if the user had cancelled, and Dask's reconnect
loop printed a raw traceback when the process ended (issue 36). `Executing.lost()` tells that apart from a cancel
(the points are failed with "the Dask scheduler at … is gone", which `--resume` completes), and a client the sweep
opened itself (`dask://host:port`) is closed when the sweep ends, its reconnect loop with it, without the traceback.

`dask-local` starts a `distributed.LocalCluster` in this process for the sweep and stops it at the end
(`local_cluster.py`: the Sweep form's "Start a local cluster"). `dask://ADDRESS` takes any address Dask takes
(`tcp://`, `tls://`, `ws://`, `wss://`, `inproc://`; `host:port` alone is tcp), or a scheduler file
(`dask://scheduler.json`, what `dask scheduler --scheduler-file` writes); TLS settings come from Dask's own
configuration (distributed.comm.tls), as for any Dask client. Before a point is submitted, every worker is asked
whether it can read every model (`check_models`): a path missing on a worker is said then, naming the worker,
instead of failing its points one by one. An address where nothing listens is said at once (a TCP probe of
host:port) rather than after Dask's 30 s of retries.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.gpu.nvml import visible_gpus
from dld_jupyter.activities.sweep.local_cluster import (
    LOCAL_CLUSTER,
    distributed_module,
    start_local_cluster,
    stop_local_cluster,
)
from dld_jupyter.activities.sweep.manifest import Manifest

LIVE = ("running", "newly-created")  # distributed.Client.status while it is connected (or about to be)
CLOSE_TIMEOUT_S = 5
CONNECT_TIMEOUT = "10s"  # Dask's own default retries for 30 s: a form waited that long to say "no scheduler"
PROBE_TIMEOUT_S = 5.0
QUIET = ("distributed", "distributed.client", "distributed.utils", "distributed.core", "distributed.comm")


@dataclass
class Executing:
    """An executor and what the sweep owes it: `owned` (shut it down at the end), `lock_here` (clocks locked in
    this process for the whole sweep), `client` (a Dask client opened for the sweep, closed at the end),
    `cluster` (a local cluster started for the sweep, stopped at the end)."""

    executor: cf.Executor
    owned: bool = False
    lock_here: bool = False
    client: Any = None
    scheduler: str | None = None  # the Dask scheduler's address, known while it answered
    cluster: Any = None
    command: str | None = None  # the --executor that runs the points there again from a shell (None: local)

    def where(self) -> str | None:
        """Where the points run, said in the sweep's log: the Dask scheduler's address; None for threads here."""
        if self.scheduler is None:
            return None
        started = f" (a local cluster of {len(self.cluster.workers)} worker process(es) started for this sweep, " \
                  "stopped when it ends)" if self.cluster is not None else ""
        return f"points run on the Dask scheduler at {self.scheduler}{started}"

    def lost(self) -> str | None:
        """Why the Dask scheduler is gone ("the Dask scheduler at tcp://… is gone …"), or None while it answers
        (or for an executor that is no Dask client)."""
        client = dask_client(self.executor)
        if client is None or getattr(client, "status", "running") in LIVE:
            return None
        return (f"the Dask scheduler at {self.scheduler or 'its address'} is gone (the client lost its connection; "
                "points running there were stopped)")

    def close(self) -> None:
        """Close the client the sweep opened, quietly (a dead scheduler's reconnect loop would log tracebacks),
        then the local cluster it started."""
        if self.client is not None:
            with _quiet(QUIET), contextlib.suppress(Exception):
                self.client.close(timeout=CLOSE_TIMEOUT_S)
            self.client = None
        if self.cluster is not None:
            with _quiet(QUIET):
                stop_local_cluster(self.cluster)
            self.cluster = None


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
    """The executor of `spec` (`_executor`); on Dask, once every worker said it can read every model."""
    executing = _executor(spec, manifest)
    client = dask_client(executing.executor)
    if client is not None:
        try:
            check_models(client, manifest.models)
        except BaseException:
            executing.close()
            raise
    return executing


def _executor(spec: str | cf.Executor | None, manifest: Manifest) -> Executing:
    """None/"local": threads here (one per device); "dask": the current client; "dask-local": a local cluster
    started for the sweep; "dask://ADDRESS" or "dask://SCHEDULER.json": a client opened to that scheduler; a
    distributed.Client; or any Executor."""
    if isinstance(spec, cf.Executor):
        address = _address(dask_client(spec))
        return Executing(spec, scheduler=address, command=address and f"dask://{address}")
    if spec is not None and not isinstance(spec, str):  # a distributed.Client
        address = _address(spec)
        return Executing(spec.get_executor(pure=False), scheduler=address, command=address and f"dask://{address}")
    if spec is None or spec == "local":
        threads = cf.ThreadPoolExecutor(max_workers=_devices(manifest), thread_name_prefix="dld-sweep")
        return Executing(threads, owned=True, lock_here=True)
    if spec == LOCAL_CLUSTER:
        cluster, client = start_local_cluster(_devices(manifest))
        return Executing(client.get_executor(pure=False), client=client, scheduler=_address(client), cluster=cluster,
                         command=LOCAL_CLUSTER)
    if spec == "dask" or spec.startswith("dask://"):
        distributed = distributed_module()
        if spec == "dask":
            try:
                client = distributed.get_client()
            except ValueError as error:
                raise SpecError("executor='dask': no Dask client in this process; give the scheduler's address "
                                "(executor='dask://host:port': the Sweep form's Scheduler field), start a local "
                                "cluster (executor='dask-local': its Start a local cluster) or create a "
                                "distributed.Client first") from error
            address = _address(client)
            return Executing(client.get_executor(pure=False), scheduler=address,
                             command=address and f"dask://{address}")
        client, address = _connect(distributed, spec)
        return Executing(client.get_executor(pure=False), client=client, scheduler=address, command=spec)
    raise SpecError(f"executor: {spec!r} is not 'local', 'dask', 'dask-local', 'dask://ADDRESS' (tcp://, tls://, "
                    "ws://… or host:port), 'dask://SCHEDULER.json' or a concurrent.futures.Executor")


def _devices(manifest: Manifest) -> int:
    """Points that can run at once here: one per GPU the points use, plus one for the CPU points (the scheduler
    runs one CPU point at a time anyway)."""
    points = [p.point for p in manifest.points]
    gpus = len(visible_gpus()) if any(p.uses_gpu for p in points) else 0
    cpu = 1 if any(not p.uses_gpu for p in points) else 0
    return max(1, gpus + cpu)


def _probe(spec: str, address: str) -> None:
    """SpecError at once when nothing listens at a tcp:// address (Dask would retry for its whole timeout)."""
    if not address.startswith("tcp://"):
        return
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not host or not port.isdigit():
        raise SpecError(f"executor {spec}: {address} is no host:port address; give the scheduler's address as "
                        "tcp://HOST:PORT (Dask's default port is 8786)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as error:
        why = error.strerror or str(error) or type(error).__name__
        raise SpecError(f"executor {spec}: no Dask scheduler answers at {address} ({why}); start one there "
                        "(dask scheduler), check the address, or start a local cluster instead") from error


def _connect(distributed: Any, spec: str) -> tuple[Any, str]:
    """A client of `dask://…` and the scheduler's address (a scheduler file's, as the client read it)."""
    rest = spec.removeprefix("dask://")
    file = rest.endswith(".json") or ("://" not in rest and os.path.isfile(rest))
    if file and not os.path.isfile(rest):
        raise SpecError(f"executor {spec}: the scheduler file {rest} does not exist (dask scheduler --scheduler-file "
                        "writes it; give its path as the workers see it)")
    address = rest if file or "://" in rest else "tcp://" + rest
    if not file:
        _probe(spec, address)
    try:
        client = (distributed.Client(scheduler_file=rest, timeout=CONNECT_TIMEOUT) if file
                  else distributed.Client(address, timeout=CONNECT_TIMEOUT))
    except (OSError, TimeoutError) as error:
        raise SpecError(f"executor {spec}: no Dask scheduler answers at {address} ({error})") from error
    except (ValueError, TypeError) as error:  # an unknown protocol, a malformed address, TLS without its settings
        raise SpecError(f"executor {spec}: Dask cannot connect to {address}: {error}") from error
    return client, _address(client) or address


def _unreadable(paths: list[str]) -> dict[str, str]:
    """On a worker: each model it cannot read, with why (run there by `check_models`)."""
    found = {}
    for path in paths:
        try:
            with open(path, "rb") as file:
                file.read(1)
        except OSError as error:
            found[path] = error.strerror or type(error).__name__
    return found


def check_models(client: Any, models: list[str]) -> None:
    """SpecError naming each model some worker cannot read, and the workers, before anything is submitted."""
    answers: dict[str, dict[str, str]] = client.run(_unreadable, sorted(set(models)))
    if not answers:
        raise SpecError(f"the Dask scheduler at {_address(client)} has no worker: start workers (dask worker ADDRESS) "
                        "before the sweep")
    missing: dict[str, list[str]] = {}
    for worker, unreadable in sorted(answers.items()):
        for path, why in unreadable.items():
            missing.setdefault(f"{path} ({why})", []).append(worker)
    if missing:
        said = "; ".join(f"{path} on {', '.join(workers)}" for path, workers in missing.items())
        raise SpecError(f"models not readable on Dask workers: {said}. Put the models on a file system every worker "
                        "sees, at the same path (or copy them there), then start the sweep again")
