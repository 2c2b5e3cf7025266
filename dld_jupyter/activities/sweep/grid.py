"""The grid of a sweep: models × batch sizes × providers × precisions × targets, each point a normal profile spec.

A point is plain data (JSON in the manifest, pickled to a Dask worker). Whether it can run at all is decided here
and said with a reason, never papered over: a model whose inputs have a fixed batch cannot be measured at batch 8
(ONNX Runtime would either refuse the feed or, worse, profile batch 1 under the label 8), and a precision the
runtime cannot honour is not silently measured in FP32. Providers missing on a target are found where the point
runs (`point.py`), since only that host knows what its ONNX Runtime offers.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.gpu_watch import ForeignPolicy
from dld_jupyter.activities.runtimes.onnxruntime.spec import PROVIDERS
from dld_jupyter.activities.spec import REPORT_SUFFIX, ActivitySpec
from dld_jupyter.activities.spec_fields import check_fields

PRECISIONS = ("fp32", "fp16", "bf16", "int8")
TENSORRT = "tensorrt"  # a provider name that runs the point with TensorRT instead of ONNX Runtime
LOCAL_NAMES = ("", "local", "localhost")


@dataclass(frozen=True)
class SweepPoint:
    """One point of the grid: what it measures, and where its report goes (a file name inside the sweep folder)."""

    id: str
    model: str  # absolute path of the model as given (fp16 points of ONNX Runtime run a converted copy)
    batch: int
    provider: str  # "cpu" | "cuda" | "tensorrt"
    precision: str  # "fp32" | "fp16" | "bf16" | "int8"
    target: str  # a target name ("localhost")

    @property
    def report_name(self) -> str:
        return self.id + REPORT_SUFFIX

    @property
    def uses_gpu(self) -> bool:
        return self.provider != "cpu"

    def key(self) -> tuple[str, int, str, str, str]:
        return (self.model, self.batch, self.provider, self.precision, self.target)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepPoint:
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls)})


@dataclass(frozen=True)
class Settings:
    """What every point shares: the measured loop and the sweep's scheduling options (kept in the manifest)."""

    iterations: int = 20
    warmup: int = 5
    optimize: bool = True
    threads: int = 0
    seed: int = 0
    gpu_metrics: bool = False  # NVML sampling costs 100 ms+ per point; the sweep watches memory itself
    lock_clocks: bool = False  # lock clocks to base for every GPU point of the sweep (TREx semantics)
    foreign: str = "warn"  # another process on a point's GPU: "warn" | "wait" | "fail"
    foreign_wait_s: float = 60.0  # how long "wait" waits for the GPU to be free before failing the point
    gpus: tuple[int, ...] | None = None  # GPU indices a local sweep may use; None: every GPU NVML sees

    def __post_init__(self) -> None:
        check_fields(self)  # every field against its annotation (a manifest is JSON a user may edit)
        if self.iterations < 1 or self.warmup < 0:
            raise SpecError(f"iterations must be >= 1 and warmup >= 0, got {self.iterations} and {self.warmup}")
        ForeignPolicy(self.foreign, self.foreign_wait_s)  # SpecError naming the policies (the scheduler's)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["gpus"] = list(self.gpus) if self.gpus is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        body = dict(data)
        # Written by sweeps before the scheduler held a host's cores: CPU points never run beside each other (or
        # beside GPU points) now, whatever it said, so an older manifest still resumes.
        body.pop("overlap_cpu", None)
        known = sorted(f.name for f in dataclasses.fields(cls))
        if not set(body) <= set(known):
            raise SpecError(f"sweep settings: unknown option(s) {sorted(set(body) - set(known))}; known: {known}")
        if body.get("gpus") is not None:
            body["gpus"] = tuple(int(g) for g in body["gpus"])
        return cls(**body)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "model"


def build_grid(
    models: Sequence[str],
    batch: Sequence[int],
    provider: Sequence[str],
    precision: Sequence[str],
    targets: Sequence[str],
) -> list[SweepPoint]:
    """Every combination, in a stable order (models, then batch, provider, precision, target); ids are readable
    and unique (`003-resnet-b8-cuda-fp16`, the target added when there are several)."""
    for name, values in (("models", models), ("batch", batch), ("provider", provider), ("precision", precision),
                         ("targets", targets)):
        if not values:
            raise SpecError(f"{name}: give at least one value")
    for size in batch:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise SpecError(f"batch: {size!r} is not a batch size (an integer >= 1)")
    for name in provider:
        if name not in (*PROVIDERS, TENSORRT):
            raise SpecError(f"provider: {name!r} is not one of {[*sorted(PROVIDERS), TENSORRT]}")
    for name in precision:
        if name not in PRECISIONS:
            raise SpecError(f"precision: {name!r} is not one of {list(PRECISIONS)}")
    paths = [str(Path(m).resolve()) for m in models]
    for path in paths:
        if not Path(path).is_file():
            raise SpecError(f"models: {path} does not exist or is not a file")
    if len(set(paths)) != len(paths):
        raise SpecError("models: a model is listed twice")
    points = []
    for index, (model, size, prov, prec, target) in enumerate(
        itertools.product(paths, batch, provider, precision, targets)
    ):
        where = f"-{_slug(target)}" if len(targets) > 1 else ""
        point_id = f"{index:03d}-{_slug(Path(model).stem)}-b{size}-{prov}-{prec}{where}"
        points.append(SweepPoint(point_id, model, size, prov, prec, target))
    return points


def batch_problem(model: str, batch: int) -> str | None:
    """Why `model` cannot run at `batch`, or None: the profile's own rule (`onnxruntime.inputs.batch_problem`)."""
    import onnx

    from dld_jupyter.activities.runtimes.onnxruntime.inputs import batch_problem as inputs_problem

    return inputs_problem(onnx.load(model, load_external_data=False).graph, batch)


def precision_problem(point: SweepPoint) -> str | None:
    """Why the runtime cannot honour `point.precision`, or None."""
    if point.provider == TENSORRT or point.precision in ("fp32", "fp16"):
        return None
    return (f"precision {point.precision}: ONNX Runtime runs the model's own types (fp32, or fp16 through a converted "
            "copy); use provider 'tensorrt' for bf16/int8, or give a quantized model")


def point_spec(point: SweepPoint, model: str, settings: Settings, device: int, output: str) -> ActivitySpec:
    """The normal profile spec of `point` on GPU `device` (ignored on the CPU), writing its report to `output`
    (`kinds.profile.profile_spec`, as every front door builds one)."""
    from dld_jupyter.activities.kinds.profile import profile_spec

    shared: dict[str, Any] = {"batch_size": point.batch, "iterations": settings.iterations, "warmup": settings.warmup,
              "seed": settings.seed, "gpu_metrics": settings.gpu_metrics, "lock_clocks": settings.lock_clocks,
              "output": output}
    spec: ActivitySpec
    if point.provider == TENSORRT:
        flags: dict[str, Any] = {name: point.precision == name for name in ("fp16", "bf16", "int8")}
        spec = profile_spec(model, "tensorrt", **flags, **shared, device=device)
    else:
        spec = profile_spec(model, "onnxruntime", **shared, provider=point.provider,
                            device=device if point.uses_gpu else 0, optimize=settings.optimize,
                            threads=settings.threads)
    return spec
