"""One row per run for the runs list (seed 001's Inference Run Logger): what every front door shows of a live or
past run, whatever its kind, built from the live runs registry (runs.py).

Why one place: the sidebar's Runs section (lab/kernel_sidebar.py → js/src/lab/runs.ts) and `dld.runs()` in a
notebook show the same columns — kind, model, target and device, state, progress, the report's median, start time
and duration, the artifacts, the `dld` command line that reproduces the run (`command_line()` of the run, from its
spec) and, for a sweep, its points. A row is plain data (`to_json` for the comm); names and paths in it are text,
never markup. The median is read from the report's summary once per report file (cached by path and mtime).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.activities.group import RunGroup
from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.sweep import Sweep
from dld_jupyter.activities.sweep.manifest import PointState
from dld_jupyter.activities.thread_run import RunHandle, ThreadRun
from dld_jupyter.frontdoor.runs import RunRegistry, track

KINDS = {"profile": "profile", "export_engine": "engine export", "analysis": "analysis", "session": "session",
         "diverge": "divergence"}
RUNTIMES = {"onnxruntime": "ONNX Runtime", "tensorrt": "TensorRT"}


@dataclass(frozen=True)
class RunRow:
    """A run as the runs list shows it; `points` holds a sweep's points (each a row of its own, without command)."""

    id: str
    kind: str  # "profile", "engine export", "sweep", "divergence", "analysis", "session", "point" (of a sweep), or a
    # Tools job's name
    model: str  # the model path ("" when the run names none)
    runtime: str  # "ONNX Runtime", "TensorRT", "" for in-process work
    target: str  # where it ran: "localhost", a saved target's name, "kernel" for in-process work
    device: str  # "cpu", "cuda:0", "" when none
    state: str  # queued, running, succeeded, failed, cancelled (a point: the sweep manifest's state)
    fraction: float | None  # progress 0..1 (None: nothing said yet)
    phase: str
    median_ms: float | None  # the report's median pass (the network's average inference time), when there is one
    started: float | None  # wall-clock time (seconds since the epoch) it was listed, so when it was started
    duration_s: float | None  # how long it ran (so far, for a live run)
    error: str | None
    artifacts: dict[str, str]  # name (report, engine, layer_info, model, tensors, folder) -> path
    command: str  # the shell command that reproduces it ("" when no dld command does)
    unsaid: tuple[str, ...]  # what the run did that the command does not say
    live: bool
    points: tuple[RunRow, ...] = field(default=())

    @property
    def command_line(self) -> str:
        """The command as text (`dld profile …`), "" when none reproduces the run."""
        return self.command

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "points"}
        data["unsaid"] = list(self.unsaid)
        data["points"] = [point.to_json() for point in self.points]
        return data


def rows(registry: RunRegistry | None = None) -> list[RunRow]:
    """The rows of the registry's runs (the kernel's live runs registry by default), newest first; the runs of a
    group (a sweep's point runs) are in its row, not beside it."""
    listed = (registry or track()).listed()
    inside = {member.id for run, _ in listed if isinstance(run, RunGroup) for member in run.members}
    return [row_of(run, started) for run, started in listed if run.id not in inside]  # a sweep's runs: its points


def row_of(run: RunHandle, started: float | None) -> RunRow:
    """The row of `run`, listed at wall-clock time `started`."""
    if isinstance(run, Sweep):
        return _sweep_row(run, started)
    result = run.result
    spec = run.spec
    command = run.command_line()
    artifacts = dict(result.artifacts) if result is not None else {}
    report = artifacts.get("report")
    kind, runtime, target, device = "run", "", "kernel", ""
    if isinstance(run, ThreadRun):  # in-process work: a Tools job, named by its tool
        kind = run.what
    if isinstance(run, Run):
        kind, runtime = KINDS.get(run.spec.ACTIVITY, run.spec.ACTIVITY), RUNTIMES.get(run.spec.RUNTIME, "")
        target, device = run.target.name, run.device
    progress = run.progress
    return RunRow(
        id=run.id, kind=kind, model=spec.model if spec is not None else "", runtime=runtime,
        target=target, device=device, state=run.status.value,
        fraction=1.0 if run.status is ActivityStatus.SUCCEEDED else (progress.fraction if progress else None),
        phase=progress.phase if progress else "", median_ms=report_median(report) if report else None,
        started=started, duration_s=_duration(run, started), error=result.error if result is not None else None,
        artifacts=artifacts, command=command.text, unsaid=command.unsaid, live=not run.done,
    )


def _duration(run: RunHandle, started: float | None) -> float | None:
    result = run.result
    if result is not None:
        return result.duration_s
    return time.time() - started if started is not None else None


def _sweep_row(sweep: Sweep, started: float | None) -> RunRow:
    """A sweep (a run group: its state, progress and `dld sweep` line) with its points, from its manifest."""
    run, manifest, result, progress, command = sweep, sweep.manifest, sweep.result, sweep.progress, sweep.command_line()
    models = manifest.models
    return RunRow(
        id=run.id, kind="sweep", model=models[0] if len(models) == 1 else f"{len(models)} models",
        runtime=", ".join(manifest.provider), target=", ".join(manifest.targets), device="",
        state=run.status.value, fraction=progress.fraction if progress else None,
        phase=progress.phase if progress else "", median_ms=None, started=started,
        duration_s=_duration(run, started), error=result.error if result is not None else sweep.error,
        artifacts={"folder": str(manifest.folder)}, command=command.text, unsaid=command.unsaid, live=not run.done,
        points=tuple(_point_row(manifest.folder, p) for p in sweep.points()),
    )


def _point_row(folder: Path, point: PointState) -> RunRow:
    p = point.point
    report = str(folder / point.report) if point.report else None
    return RunRow(
        id=p.id, kind="point", model=p.model, runtime=f"{p.provider} {p.precision} b{p.batch}", target=p.target,
        device=point.device or "", state=point.state, fraction=None, phase="", median_ms=point.median_ms,
        started=None, duration_s=None, error=point.reason, artifacts={"report": report} if report else {},
        command="", unsaid=(), live=point.state in ("pending", "queued", "running"),
    )


_MEDIANS: dict[str, tuple[int, float | None]] = {}


def report_median(path: str) -> float | None:
    """The report's median pass in ms (its summary), None when the file is gone or says none; read once per
    version of the file."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    cached = _MEDIANS.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        with open(path, encoding="utf-8") as file:
            median = json.load(file).get("summary", {}).get("median_ms")
    except (OSError, ValueError, AttributeError):
        median = None
    value = float(median) if isinstance(median, (int, float)) and not isinstance(median, bool) else None
    _MEDIANS[path] = (stamp, value)
    return value
