"""A Dask cluster started for one sweep in this process (`executor="dask-local"`), stopped when the sweep ends or
the process exits.

Why: Sweep… in a designer with executor "dask" asked for a `distributed.Client` in the kernel, and a designer tab
has no console to make one (issue 42). The Sweep form's "Start a local cluster" (and `dld sweep --executor
dask-local`) starts a `distributed.LocalCluster` here instead: worker processes (one thread each, as many as the
local executor's threads: one per GPU the points use, plus one for the CPU points), no dashboard, Dask's logs at
errors only. The sweep closes it when it ends, however it ends (`Executing.close`). When the process exits first,
`atexit` closes what is still open, and a kernel killed outright takes its workers with it (each worker process
exits when its parent's pipe closes: Dask's own watch, checked by tests/activities/test_sweep_dask_local.py).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import threading
from typing import Any

from dld_jupyter.activities.errors import SpecError

LOCAL_CLUSTER = "dask-local"  # the executor name that starts one
CLOSE_TIMEOUT_S = 10

_OPEN: list[Any] = []  # the clusters started here and not yet closed
_LOCK = threading.Lock()


def distributed_module() -> Any:
    """`distributed`, or the SpecError that says which extra brings it."""
    try:
        return importlib.import_module("distributed")
    except ImportError as error:
        raise SpecError("a Dask executor needs distributed: pip install 'dld_jupyter[dask]'") from error


def start_local_cluster(workers: int) -> tuple[Any, Any]:
    """(cluster, client): a LocalCluster of `workers` worker processes and a client of it; SpecError when Dask
    cannot start one (what it said)."""
    distributed = distributed_module()
    try:
        cluster = distributed.LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.ERROR)
    except Exception as error:  # no free port, no memory, a broken Dask configuration: the user's to see
        raise SpecError(f"executor {LOCAL_CLUSTER}: Dask could not start a local cluster ({error})") from error
    with _LOCK:
        _OPEN.append(cluster)
    try:
        client = distributed.Client(cluster)
    except BaseException:
        stop_local_cluster(cluster)
        raise
    return cluster, client


def stop_local_cluster(cluster: Any) -> None:
    """Close `cluster` and its worker processes (again: nothing)."""
    with _LOCK:
        if cluster not in _OPEN:
            return
        _OPEN.remove(cluster)
    with contextlib.suppress(Exception):  # already half closed by Dask at exit: nothing more to do
        cluster.close(timeout=CLOSE_TIMEOUT_S)


def open_clusters() -> list[Any]:
    """The local clusters started here and still open."""
    with _LOCK:
        return list(_OPEN)


@atexit.register
def _close_all() -> None:
    for cluster in open_clusters():
        stop_local_cluster(cluster)
