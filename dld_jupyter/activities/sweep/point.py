"""One sweep point, run where the executor puts it: the task every executor (threads here, a Dask worker, any
`concurrent.futures.Executor`) calls, with plain data in and plain data out (the report's bytes included), so a
remote worker needs no shared folder for the results: the sweep writes them atomically on its side.

The task decides applicability on the host that runs it (a provider missing from that host's ONNX Runtime, no GPU
visible) and runs the point as a normal profile Run through the process's scheduler (`activities.scheduler`: it
holds the GPU, across processes too, and keeps CPU points apart from GPU points of the host), on whichever allowed
GPU is free first; once the run holds its GPU, the scheduler asks NVML about other processes there as for every GPU
run (`gpu_watch.py`), under the sweep's `foreign` policy, and the point keeps what it saw. A worker
error of kind "unavailable" becomes "not applicable" too. Run in this process (a thread pool), the task is given
its sweep (a `RunGroup`): the point's Run joins it, so cancelling the sweep cancels the run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import json
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import UNAVAILABLE
from dld_jupyter.activities.gpu.clocks import locked_clocks
from dld_jupyter.activities.gpu.nvml import Gpu, visible_gpus
from dld_jupyter.activities.gpu_watch import ForeignPolicy, peak_rss_mb
from dld_jupyter.activities.group import RunGroup
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.scheduler import SCHEDULER
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.sweep.grid import (
    LOCAL_NAMES,
    TENSORRT,
    Settings,
    SweepPoint,
    batch_problem,
    point_spec,
    precision_problem,
)
from dld_jupyter.activities.sweep.manifest import CANCELLED, DONE, FAILED, NOT_APPLICABLE
from dld_jupyter.activities.targets.base import Target

_FP16_LOCK = threading.Lock()
Started = Callable[[str], None]  # told the point's id once its run holds its device


def _cancelled(sweep_id: str, group: RunGroup | None) -> bool:
    if group is not None:
        return group.cancelled
    try:  # on a Dask worker, the sweep cancels through a cluster-wide Event
        distributed: Any = importlib.import_module("distributed")
        distributed.get_worker()
    except (ImportError, ValueError):
        return False
    with contextlib.suppress(Exception):
        return bool(distributed.Event(f"dld-sweep-cancel-{sweep_id}").is_set())
    return False


def resolve_target(name: str) -> Target:
    """The target called `name` through the target registry (`targets.choose`): local, or a saved SSH target."""
    from dld_jupyter.activities.targets.choose import target_named

    return target_named(name)


def _outcome(point: SweepPoint, state: str, reason: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": point.id, "state": state, "reason": reason, "host": socket.gethostname(), **extra}


def _fp16_copy(model: str) -> str:
    """An FP16 copy of `model` in this host's temp dir, converted once per model content."""
    from dld_jupyter.transforms.fp16 import convert_to_fp16

    digest = hashlib.sha256(Path(model).read_bytes()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "dld-sweep-models"
    folder.mkdir(exist_ok=True)
    copy = folder / f"{Path(model).stem}-{digest}.fp16.onnx"
    with _FP16_LOCK:
        if not copy.is_file():
            partial = copy.with_name(f".{copy.name}.{threading.get_ident()}.partial.onnx")
            convert_to_fp16(model, partial, compare=False)
            partial.replace(copy)
    return str(copy)


def _provider_problem(point: SweepPoint) -> str | None:
    if point.provider in ("cpu", TENSORRT):
        return None
    import onnxruntime

    wanted = "CUDAExecutionProvider"
    if wanted not in onnxruntime.get_available_providers():
        return (f"provider {point.provider}: {wanted} is not in this host's ONNX Runtime "
                f"({socket.gethostname()}: {onnxruntime.get_available_providers()}); install dld_jupyter[gpu] there")
    return None


def started_topic(sweep_id: str) -> str:
    """The Dask event topic on which a worker says a point of the sweep started (the sweep subscribes to it)."""
    return f"dld-sweep-started-{sweep_id}"


def _worker_started(sweep_id: str) -> Started | None:
    """On a Dask worker: tell the sweep's client a point started, through the scheduler's event log."""
    try:
        worker = importlib.import_module("distributed").get_worker()
    except (ImportError, ValueError):
        return None
    return lambda point_id: worker.log_event(started_topic(sweep_id), point_id)


def run_point(task: dict[str, Any], group: RunGroup | None = None, started: Started | None = None) -> dict[str, Any]:
    """Run one point (`task`: sweep id, point, settings, lock_clocks) and return its outcome with the report bytes;
    `group` and `started`: the sweep, when the task runs in its process (on a Dask worker: its event log)."""
    sweep_id, point = str(task["sweep"]), SweepPoint.from_dict(task["point"])
    started = started or _worker_started(sweep_id)
    settings = Settings.from_dict(task["settings"])
    if not Path(point.model).is_file():
        return _outcome(point, FAILED, f"model {point.model} is not on host {socket.gethostname()}; put the models "
                                       "on a file system every worker sees")
    local = point.target in LOCAL_NAMES
    problem = precision_problem(point) or batch_problem(point.model, point.batch)
    problem = problem or (_provider_problem(point) if local else None)  # a remote worker says "unavailable"
    gpus: list[Gpu] = []
    if problem is None and point.uses_gpu and local:
        gpus = [g for g in visible_gpus() if settings.gpus is None or g.cuda_index in settings.gpus]
        if not gpus:
            problem = f"provider {point.provider}: no GPU is visible on {socket.gethostname()}"
    elif problem is None and point.uses_gpu:  # a remote target's GPUs: the scheduler locks (target, index) here
        gpus = [Gpu(i, i, f"{point.target}-{i}") for i in (settings.gpus or (0,))]
    if problem is not None:
        return _outcome(point, NOT_APPLICABLE, problem)
    if _cancelled(sweep_id, group):
        return _outcome(point, CANCELLED, "cancelled before it started")
    model = _fp16_copy(point.model) if point.precision == "fp16" and point.provider != TENSORRT else point.model
    return _measure(sweep_id, point, settings, model, gpus, bool(task.get("lock_clocks")), group, started)


def _measure(
    sweep_id: str, point: SweepPoint, settings: Settings, model: str, gpus: list[Gpu], lock: bool,
    group: RunGroup | None, started: Started | None,
) -> dict[str, Any]:
    target = resolve_target(point.target)
    nvml_here = bool(gpus) and point.target in LOCAL_NAMES  # NVML sees this host's GPUs only
    with tempfile.TemporaryDirectory(prefix="dld-sweep-") as folder, contextlib.ExitStack() as stack:
        output = str(Path(folder) / point.report_name)
        in_worker = dataclasses.replace(settings, lock_clocks=lock and not nvml_here)  # a remote worker locks there
        specs: list[ActivitySpec] = [point_spec(point, model, in_worker, gpu.cuda_index, output) for gpu in gpus]
        specs = specs or [point_spec(point, model, in_worker, 0, output)]
        run = Run(specs[0], target, remember=False)
        if group is not None:
            group.add(run)

        def before_start(run: Run) -> None:
            """The run holds its device (NVML checked it for other processes): clocks locked, then the worker."""
            if started is not None:
                started(point.id)
            gpu = next((g for g in gpus if f"cuda:{g.cuda_index}" == run.spec.device_key()), None)
            if gpu is not None and nvml_here and lock:
                stack.enter_context(locked_clocks(gpu.nvml_index, lambda m: run.log("info", m)))

        SCHEDULER.submit(run, anywhere=specs if len(specs) > 1 else (), before_start=before_start,
                         foreign=ForeignPolicy(settings.foreign, settings.foreign_wait_s))
        peak_rss: float | None = None
        while run.wait(0.05) is None:  # often enough to read the resident peak of a short run
            peak_rss = peak_rss_mb(run.pid) or peak_rss
            if _cancelled(sweep_id, group):
                run.cancel()
        result = run.result
        assert result is not None
        watch = run.gpu_watch
        check = watch.record() if watch is not None else {}
        memory = (watch.peak_bytes / 2**20 if watch is not None and watch.peak_bytes else None) or peak_rss
        extra: dict[str, Any] = {"device": run.spec.device_key(), "gpu_check": check, "peak_memory_mb": memory}
        if not (result.ok and result.report_path):
            if result.error_kind == UNAVAILABLE:
                return _outcome(point, NOT_APPLICABLE, result.error, **extra)
            state = CANCELLED if result.status.value == "cancelled" else FAILED
            return _outcome(point, state, result.error, **extra)
        data = json.loads(Path(result.report_path).read_text(encoding="utf-8"))  # with its `gpu_exclusivity`
    summary = data["summary"]
    median = float(summary["median_ms"])
    return _outcome(
        point, DONE, report_bytes=json.dumps(data).encode("utf-8"), median_ms=median,
        p90_ms=float(summary.get("p90_ms") or median), min_ms=float(summary.get("min_ms") or median),
        throughput=point.batch * 1000.0 / median if median > 0 else None, finished=time.time(), **extra,
    )
