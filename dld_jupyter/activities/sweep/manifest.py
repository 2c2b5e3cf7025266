"""The sweep manifest (`sweep.json` beside the reports): the grid, the shared settings and each point's state.

It is what makes a sweep resumable: a point is finished when the manifest says "done" and its report file is
there; anything else (pending, failed, cancelled, or "running" left by a kernel that died) runs again on resume.
Every change is written atomically (`formats.atomic_write`), so a crash leaves the previous manifest, never half.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dld_jupyter.activities.command_line import Args, CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec_fields import check_fields
from dld_jupyter.activities.sweep.grid import Settings, SweepPoint
from dld_jupyter.activities.sweep.manifest_check import check_data
from dld_jupyter.formats.atomic_write import atomic_write_text

MANIFEST = "sweep.json"
FORMAT = "dld-sweep"
VERSION = 1
PENDING, QUEUED, RUNNING, DONE, FAILED, NOT_APPLICABLE, CANCELLED = (
    "pending", "queued", "running", "done", "failed", "not applicable", "cancelled"
)
STATES = (PENDING, QUEUED, RUNNING, DONE, FAILED, NOT_APPLICABLE, CANCELLED)
ENDED = (DONE, FAILED, NOT_APPLICABLE, CANCELLED)


@dataclass
class PointState:
    """A point's state and what its run left: the report's file name, its figures, the GPU check, the error."""

    point: SweepPoint
    state: str = PENDING
    reason: str | None = None  # why not applicable, failed or cancelled
    report: str | None = None  # the report's file name in the sweep folder
    median_ms: float | None = None
    p90_ms: float | None = None
    min_ms: float | None = None
    throughput: float | None = None  # samples per second: batch / median
    peak_memory_mb: float | None = None  # the worker's peak GPU memory (GPU points) or resident memory (CPU)
    device: str | None = None  # "cpu", "cuda:1" on the host that ran it
    host: str | None = None
    gpu_check: dict[str, Any] = field(default_factory=dict)  # foreign processes seen before and during the run
    runs: int = 0  # how many times it was started (a Dask retry after a lost worker counts)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "point"}
        return {**self.point.to_dict(), **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PointState:
        point = SweepPoint.from_dict(data)
        extra = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "point"}
        if extra.get("state") not in STATES:
            raise SpecError(f"sweep manifest: point {point.id} has an unknown state {extra.get('state')!r}")
        return cls(point=point, **extra)


@dataclass
class Manifest:
    folder: Path
    models: list[str]
    batch: list[int]
    provider: list[str]
    precision: list[str]
    targets: list[str]
    settings: Settings
    points: list[PointState]
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def path(self) -> Path:
        return self.folder / MANIFEST

    def grid(self) -> dict[str, list[Any]]:
        return {"models": self.models, "batch": self.batch, "provider": self.provider,
                "precision": self.precision, "targets": self.targets}

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "grid": self.grid(), "settings": self.settings.to_dict(),
                "points": [p.to_dict() for p in self.points]}

    def save(self) -> None:
        with self._lock:
            text = json.dumps(self.to_dict(), indent=1)
            atomic_write_text(self.path, text)

    def state(self, point_id: str) -> PointState:
        for entry in self.points:
            if entry.point.id == point_id:
                return entry
        raise LookupError(f"sweep: no point {point_id!r}; points are {[p.point.id for p in self.points]}")

    def finished(self, entry: PointState) -> bool:
        return entry.state == DONE and entry.report is not None and (self.folder / entry.report).is_file()

    def command_line(self, executor: object = None) -> CommandLine:
        """`dld sweep MODEL… --batch … --out DIR --rerun`: the same grid and settings measured again in the same
        folder (without --rerun the command would only complete the points not finished); `executor` is what the
        sweep ran on (None or "local": this machine's threads)."""
        s = self.settings
        args = Args("dld", "sweep", *self.models).listed("--batch", self.batch, [1])
        args.listed("--provider", self.provider, ["cpu"]).listed("--precision", self.precision, ["fp32"])
        args.listed("--targets", self.targets, ["localhost"]).option("--iterations", s.iterations, 20)
        args.option("--warmup", s.warmup, 5).option("--out", str(self.folder))
        args.switch("--optimize", s.optimize, True).option("--threads", s.threads, 0).option("--seed", s.seed, 0)
        args.switch("--gpu-metrics", s.gpu_metrics, False).flag("--lock-clocks", s.lock_clocks)
        args.option("--foreign", s.foreign, "warn").option("--foreign-wait-s", s.foreign_wait_s, 60.0)
        if s.gpus is not None:
            args.listed("--gpus", s.gpus)
        if isinstance(executor, str):
            args.option("--executor", executor, "local")
        elif executor is not None:
            args.unsaid(f"the points ran on {type(executor).__name__} (an executor object): give --executor "
                        "dask://HOST:PORT for a Dask scheduler, or leave it out for this machine")
        return args.flag("--rerun", True).done()

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for entry in self.points:
            counts[entry.state] += 1
        return counts


def load_manifest(folder: str | Path) -> Manifest:
    """The manifest of the sweep in `folder`; SpecError saying what is wrong with it."""
    from dld_jupyter.report_format.errors import ReportError
    from dld_jupyter.report_format.json_input import parse_json

    path = Path(folder) / MANIFEST
    try:
        data = parse_json(path.read_text(encoding="utf-8"), str(path), "sweep manifest")
    except FileNotFoundError as error:
        raise SpecError(f"{folder}: no sweep here ({MANIFEST} is missing); start one with dld.sweep or dld sweep") \
            from error
    except UnicodeDecodeError as error:
        raise SpecError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error
    except ReportError as error:  # not JSON, nested too deep, NaN or numbers beyond float64
        raise SpecError(str(error)) from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SpecError(f"{path}: not a sweep manifest (format {FORMAT!r} expected)")
    if data.get("version") != VERSION:
        raise SpecError(f"{path}: manifest version {data.get('version')!r}; this dld_jupyter reads version {VERSION}")
    check_data(data, path)  # ids are file names, reports inside the folder, every type as written
    grid = data["grid"]
    points = [PointState.from_dict(p) for p in data["points"]]
    for entry in points:
        check_fields(entry, f"{path}: point {entry.point.id}")
    return Manifest(
        folder=Path(folder).resolve(),
        models=list(grid["models"]), batch=list(grid["batch"]), provider=list(grid["provider"]),
        precision=list(grid["precision"]), targets=list(grid["targets"]),
        settings=Settings.from_dict(data["settings"]), points=points,
    )
