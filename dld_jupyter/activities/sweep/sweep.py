"""A sweep: every point of a grid run as a normal profile, through any `concurrent.futures.Executor`.

`start_sweep(...)` writes the manifest, submits each point that is not finished to the executor (threads here by
default, one per device; `"dask"` the current `distributed.Client`; `"dask://host:port"` a scheduler's address;
or any Executor) and returns a `Sweep` at once; a collector thread writes each report that comes back atomically
into the folder and updates the manifest. Called again on the same folder with the same grid, it runs only the
points that are missing (`rerun=True` measures them all again); `resume_sweep(folder)` does the same from the
manifest alone (a new kernel, `dld sweep --resume`). A sweep is a run made of runs (`activities.group.RunGroup`):
status, progress (the share of points ended), `cancel()` (queued points never start, running ones' workers stop),
`wait()` and `on_end()` as for one run, so the run panel and the runs list follow it; each point run in this process
joins it. Its result fails naming the failed points.
Points are handed to the executor largest first (batch × model size, `dispatch_order`): in grid order the largest
batches came last, and on two GPUs one GPU sat idle while the other ran them (two GPUs took 0.594× of one GPU's wall
time in grid order, 0.521× largest first, on the lent two-H100 machine: benchmarks/sweep_two_gpus.py).
A Dask worker that dies while running a point is Dask's to retry on another worker; when Dask gives up
(KilledWorker) the point is marked failed with that reason.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.gpu.clocks import locked_clocks
from dld_jupyter.activities.gpu.nvml import visible_gpus
from dld_jupyter.activities.group import RunGroup
from dld_jupyter.activities.result import LogLine, Progress
from dld_jupyter.activities.sweep.executors import Executing, dask_client, make_executor
from dld_jupyter.activities.sweep.grid import LOCAL_NAMES, Settings, build_grid
from dld_jupyter.activities.sweep.manifest import (
    CANCELLED,
    DONE,
    ENDED,
    FAILED,
    QUEUED,
    RUNNING,
    Manifest,
    PointState,
    load_manifest,
)
from dld_jupyter.activities.sweep.point import resolve_target, run_point, started_topic
from dld_jupyter.formats.atomic_write import atomic_write_bytes
from dld_jupyter.formats.file_lock import Held, holder, try_lock

Listener = Callable[["Sweep"], None]
FOLDER_LOCK = ".sweep.lock"  # in the sweep folder: held (flock) by the process running a sweep there


class Sweep(RunGroup):
    """A running or finished sweep: its manifest (points and states), listeners, and the face of a run."""

    def __init__(
        self,
        manifest: Manifest,
        executing: Executing,
        folder_lock: Held | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        on_log: Callable[[LogLine], None] | None = None,
    ) -> None:
        super().__init__(f"sweep {manifest.folder.name}", on_progress, on_log)
        self._folder_lock = folder_lock  # released when the sweep ends
        self.manifest = manifest
        self._executing = executing
        self._executor, self._owned, self._lock_here = executing.executor, executing.owned, executing.lock_here
        self._in_process = isinstance(self._executor, cf.ThreadPoolExecutor)  # its tasks may be handed the sweep
        self._listeners: list[Listener] = []
        self._futures: dict[cf.Future[dict[str, Any]], PointState] = {}
        self._thread = threading.Thread(target=self._main, name=f"dld-sweep-{self.id}", daemon=True)
        self.error: str | None = None
        self._ending = False

    def _started(self, point_id: str) -> None:
        """A point's run holds its device (told by the task in this process, by a Dask worker's event there)."""
        entry = self.manifest.state(point_id)
        if entry.state == QUEUED:
            entry.state = RUNNING
            self._changed()

    @property
    def folder(self) -> Path:
        return self.manifest.folder

    @property
    def done(self) -> bool:
        return self._ending or super().done

    def points(self) -> list[PointState]:
        return list(self.manifest.points)

    def on_change(self, listener: Listener) -> None:
        """Call `listener(sweep)` after each change of a point's state (on the sweep's thread)."""
        self._listeners.append(listener)

    def command_line(self) -> CommandLine:
        """`dld sweep …` measuring the same grid again in the same folder (`Manifest.command_line`)."""
        return self.manifest.command_line(self._executing.command or (None if self._owned else self._executor))

    def cancelling(self) -> None:
        """Stop the points not started yet; the manifest says "cancelled" (the running ones are group members)."""
        client = dask_client(self._executor)
        if client is not None:  # the cluster's workers read a cluster-wide Event
            with contextlib.suppress(Exception):
                importlib.import_module("distributed").Event(f"dld-sweep-cancel-{self.id}", client=client).set()
        for future in list(self._futures):
            future.cancel()

    def _changed(self) -> None:
        self.manifest.save()
        points = self.manifest.points
        ended = sum(p.state in ENDED for p in points)
        self.report(ended, len(points), f"{ended} of {len(points)} points ended")
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):
                listener(self)

    # -- the collector ---------------------------------------------------------------------------------------------
    def start(self, rerun: bool = False) -> Sweep:
        for entry in self.manifest.points:
            if rerun or not self.manifest.finished(entry):
                entry.state, entry.reason = QUEUED, None
        self.begin()
        where = self._executing.where()
        if where:
            self.log("info", where)
        self._changed()
        self._thread.start()
        return self

    def _main(self) -> None:
        try:
            with contextlib.ExitStack() as stack:
                if self._lock_here and self.manifest.settings.lock_clocks:
                    for gpu in self._gpus_used():
                        stack.enter_context(locked_clocks(gpu, lambda message: None))
                self._submit_and_collect()
        except Exception as error:  # the sweep's own failure is recorded, never lost in a thread
            self.error = f"{type(error).__name__}: {error}"
            for entry in self.manifest.points:
                if entry.state not in ENDED:
                    entry.state, entry.reason = FAILED, f"the sweep stopped: {self.error}"
        finally:
            if self._owned:
                self._executor.shutdown(wait=False, cancel_futures=True)
            self._executing.close()  # a Dask client the sweep opened (dask://host:port)
            self._ending = True  # listeners of the last change see the sweep done
            self._changed()
            if self._folder_lock is not None:
                self._folder_lock.release()
            failed = [p.point.id for p in self.manifest.points if p.state == FAILED]
            said = [f"failed points: {failed}"] if failed else []
            self.finish("; ".join([*said, *([self.error] if self.error else [])]) or None)

    def _gpus_used(self) -> list[int]:
        allowed = self.manifest.settings.gpus
        if not any(p.point.uses_gpu and p.point.target in LOCAL_NAMES for p in self.manifest.points):
            return []
        return [g.nvml_index for g in visible_gpus() if allowed is None or g.cuda_index in allowed]

    def _submit_and_collect(self) -> None:
        client = dask_client(self._executor)
        if client is None:
            return self._submit_all()
        topic = started_topic(self.id)  # a Dask worker says when a point's run holds its device
        client.subscribe_topic(topic, lambda event: self._started(str(event[1])))
        try:
            return self._submit_all()
        finally:
            with contextlib.suppress(Exception):
                client.unsubscribe_topic(topic)

    def _submit_all(self) -> None:
        settings = self.manifest.settings.to_dict()
        for entry in dispatch_order(self.manifest.points):
            if entry.state != QUEUED:
                continue
            task = {"sweep": self.id, "point": entry.point.to_dict(), "settings": settings,
                    "lock_clocks": self.manifest.settings.lock_clocks and not self._lock_here}
            entry.runs += 1
            if self._in_process:  # the task may hold the sweep itself: its runs join it
                future = self._executor.submit(run_point, task, group=self, started=self._started)
            elif dask_client(self._executor) is not None:  # the dashboard names the task by its point
                key = f"{entry.point.id}@{self.id}:{entry.runs}"  # unique: another sweep may have the point id
                future = self._executor.submit(run_point, task, key=key)  # type: ignore[call-arg]  # Dask's submit
            else:
                future = self._executor.submit(run_point, task)
            self._futures[future] = entry
        self._changed()
        for future in cf.as_completed(list(self._futures)):
            entry = self._futures[future]
            self._record(entry, future)
            median = f" median {entry.median_ms:.3f} ms" if entry.median_ms is not None else ""
            self.log("info", f"{entry.point.id}: {entry.state}{median}{f' ({entry.reason})' if entry.reason else ''}")
            self._changed()

    def _record(self, entry: PointState, future: cf.Future[dict[str, Any]]) -> None:
        lost = self._executing.lost()  # Dask cancels every future of a client that lost its scheduler
        if lost is not None and not self.cancelled and (future.cancelled() or future.exception()):
            entry.state, entry.reason = FAILED, f"{lost}; dld sweep --resume {self.folder} completes it"
            return
        if future.cancelled():
            entry.state, entry.reason = CANCELLED, "cancelled before it started"
            return
        error = future.exception()
        if error is not None:
            entry.state = FAILED
            name = type(error).__name__
            hint = " (the worker running it died; Dask gave up retrying)" if name == "KilledWorker" else ""
            entry.reason = f"{name}: {error}{hint}"
            return
        outcome = future.result()
        data = outcome.pop("report_bytes", None)
        if outcome["state"] == DONE and isinstance(data, bytes):  # the report lands before the state says done
            atomic_write_bytes(self.folder / entry.point.report_name, data)
            entry.report = entry.point.report_name
        for key in ("reason", "median_ms", "p90_ms", "min_ms", "throughput", "peak_memory_mb", "device",
                    "host", "gpu_check"):
            if key in outcome:
                setattr(entry, key, outcome[key])
        entry.state = outcome["state"]


def dispatch_order(points: Sequence[PointState]) -> list[PointState]:
    """Longest expected point first (batch × model file size; grid order among equals), the classic longest-
    processing-time rule: with one worker per device, the last points to start are the short ones."""
    def cost(entry: PointState) -> int:
        try:
            size = os.path.getsize(entry.point.model)
        except OSError:  # a model only the workers see: batch alone
            size = 1
        return entry.point.batch * size

    return sorted(points, key=cost, reverse=True)


def _listed(value: Sequence[Any] | Any) -> list[Any]:
    return [value] if isinstance(value, (str, int)) else list(value)


def start_sweep(
    models: Sequence[str] | str,
    batch: Sequence[int] = (1,),
    provider: Sequence[str] | str = ("cpu",),
    precision: Sequence[str] | str = ("fp32",),
    targets: Sequence[str] | str = ("localhost",),
    *,
    out: str | None = None,
    executor: str | cf.Executor | None = None,
    rerun: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
    on_log: Callable[[LogLine], None] | None = None,
    **options: Any,
) -> Sweep:
    """Start (or complete) the sweep of the grid in `out` (default `<first model stem>-sweep/` beside it); `options`
    are `grid.Settings` fields (iterations, warmup, foreign, lock_clocks, gpus...); `on_progress`, `on_log`: the
    sweep's progress and its log (one line per point as it ends), as for one run."""
    names = _listed(models)
    for target in _listed(targets):  # an unknown name is the user's to fix, not a point's failure
        resolve_target(target)
    points = build_grid(names, _listed(batch), _listed(provider), _listed(precision), _listed(targets))
    settings = Settings.from_dict(options)
    folder = Path(out) if out else Path(names[0]).resolve().with_name(Path(names[0]).stem + "-sweep")
    folder.mkdir(parents=True, exist_ok=True)
    held = lock_folder(folder)
    try:
        return _start(folder, names, points, settings, (batch, provider, precision, targets), executor, rerun, held,
                      (on_progress, on_log))
    except BaseException:
        held.release()
        raise


def _start(folder: Path, names: list[str], points: list[Any], settings: Settings, grid: tuple[Any, ...],
           executor: str | cf.Executor | None, rerun: bool, held: Held,
           callbacks: tuple[Callable[[Progress], None] | None, Callable[[LogLine], None] | None]) -> Sweep:
    batch, provider, precision, targets = (_listed(value) for value in grid)
    fresh = Manifest(folder.resolve(), [str(Path(m).resolve()) for m in names], batch, provider, precision, targets,
                     settings, [PointState(p) for p in points])
    if fresh.path.is_file():
        existing = load_manifest(folder)
        if existing.grid() != fresh.grid() or existing.settings != settings:
            raise SpecError(f"{folder} holds another sweep (grid {existing.grid()}, settings "
                            f"{existing.settings.to_dict()}); give the same grid and settings to complete it, "
                            "or another out= folder")
        fresh = existing
    return Sweep(fresh, make_executor(executor, fresh), held, *callbacks).start(rerun)


def resume_sweep(folder: str, executor: str | cf.Executor | None = None, rerun: bool = False) -> Sweep:
    """Complete the sweep in `folder` from its manifest: only points not finished run."""
    load_manifest(folder)  # no sweep there, or a manifest to refuse: said before anything is locked
    held = lock_folder(Path(folder))
    try:
        manifest = load_manifest(folder)  # as the last holder left it
        return Sweep(manifest, make_executor(executor, manifest), held).start(rerun)
    except BaseException:
        held.release()
        raise


def lock_folder(folder: Path) -> Held:
    """The sweep folder's lock, held while a sweep runs there: a second sweep on the folder would measure every
    point again and write over the first one's reports and manifest (SpecError naming the holder's pid)."""
    held = try_lock(folder / FOLDER_LOCK)
    if held is None:
        raise SpecError(f"{folder} is in use by pid {holder(folder / FOLDER_LOCK)}: another sweep is running there. "
                        "Wait for it to end (or cancel it), or give another folder.")
    return held
