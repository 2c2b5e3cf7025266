"""The ONNX Runtime profile spec (seed 000 "Profiling with ONNX Runtime"): the first registered activity kind.

Every option of the seed's activity, plus a few of ours; its JSON (`"kind": "onnxruntime-profile"`) is what the
worker, the CLI and a remote `dld-prof` read. Validation happens on construction: a spec that exists is valid.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from dld_jupyter.activities.command_line import Args, CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec import ActivitySpec, Measurement, default_report_path, sampling_problem
from dld_jupyter.activities.spec_fields import check_fields

PROVIDERS = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider"}
P = TypeVar("P", bound="OrtProfileSpec")  # resolved() keeps the subclass (an analysis spec stays one)


@dataclass(frozen=True)
class OrtProfileSpec(ActivitySpec):
    """Profile an ONNX model with ONNX Runtime (every option of the seed's activity, plus a few of ours)."""

    model: str  # path of the ONNX model
    iterations: int = 100  # measured passes (warm-up excluded)
    warmup: int = 10  # passes run before measuring, never reported
    provider: str = "cpu"  # "cpu" | "cuda"
    optimize: bool = True  # True: ORT_ENABLE_ALL; False: ORT_DISABLE_ALL
    random_inputs: bool | None = None  # None: random unless input_folder is given
    input_folder: str | None = None  # one TensorProto `<input name>.pb` per model input
    batch_size: int | None = None  # inferred batch: fills a single leading free dimension (others become 1)
    device: int = 0  # GPU index for the CUDA provider and NVML
    output: str | None = None  # report path; None: `<model stem>.dld-report.json` next to the model
    seed: int = 0  # random input data seed
    threads: int = 0  # ORT intra-op threads; 0 lets ORT decide
    gpu_metrics: bool = True  # sample NVML/GPM metrics during the passes when a GPU is used
    lock_clocks: bool = False  # lock GPU clocks to base during the run (restored afterwards)
    sampling_ms: float = 100.0  # GPM sampling interval (NVML needs >= 100 ms; the sampler keeps >= 120 ms)
    # CUDA runs: record kernels, memcpy and memset with CUPTI (cupti-python, [gpu] extra) in kernel passes of their
    # own after the profiled ones (neither the plain nor the profiled passes carry CUPTI's cost); off skips them.
    kernel_records: bool = True
    # Seed 000 "Hide Non-Compute Operations": inputs are copied to the device once and outputs stay there, so the
    # measured passes hold no host<->device copies (on a GPU); otherwise the copies are timed as their own rows.
    hide_non_compute: bool = False

    KIND: ClassVar[str] = "onnxruntime-profile"
    RUNTIME: ClassVar[str] = "onnxruntime"
    ACTIVITY: ClassVar[str] = "profile"

    def __post_init__(self) -> None:
        check_fields(self)  # every field against its annotation (kernel_records="no" was taken as on)
        if not self.model:
            raise SpecError("model: a model path is required")
        if self.iterations < 1:
            raise SpecError(f"iterations: must be at least 1, got {self.iterations}")
        if self.warmup < 0:
            raise SpecError(f"warmup: must be 0 or more, got {self.warmup}")
        if self.provider not in PROVIDERS:
            raise SpecError(f"provider: {self.provider!r} is not one of {sorted(PROVIDERS)}")
        if self.random_inputs is True and self.input_folder:
            raise SpecError("input_folder: turn random_inputs off to use an input data folder")
        if self.random_inputs is False and not self.input_folder:
            raise SpecError("random_inputs is off: give input_folder (one <input name>.pb per model input)")
        if self.batch_size is not None and self.batch_size < 1:
            raise SpecError(f"batch_size: must be at least 1, got {self.batch_size}")
        if self.device < 0:
            raise SpecError(f"device: must be 0 or more, got {self.device}")
        if self.threads < 0:
            raise SpecError(f"threads: must be 0 or more, got {self.threads}")
        if (problem := sampling_problem(self.sampling_ms, "sampling_ms")) is not None:
            raise problem

    @property
    def uses_random_inputs(self) -> bool:
        return self.random_inputs if self.random_inputs is not None else not self.input_folder

    @property
    def ort_provider(self) -> str:
        return PROVIDERS[self.provider]

    def report_path(self) -> str:
        """Where the report goes: `output`, or `<model stem>.dld-report.json` beside the model."""
        if self.output:
            return self.output
        return default_report_path(self.model)

    def resolved(self: P) -> P:
        """Absolute paths and an explicit output path: what the engine hands to a target."""
        folder = os.path.abspath(self.input_folder) if self.input_folder else None
        return dataclasses.replace(
            self, model=os.path.abspath(self.model), input_folder=folder, output=os.path.abspath(self.report_path())
        )

    def with_output(self, output: str) -> OrtProfileSpec:
        return dataclasses.replace(self, output=output)

    def device_key(self) -> str:
        return f"cuda:{self.device}" if self.provider == "cuda" else "cpu"

    def measurement(self) -> Measurement:
        device = self.device if self.provider == "cuda" else None
        return Measurement(self.warmup, self.iterations, device, self.lock_clocks, self.gpu_metrics, self.sampling_ms)

    def input_folders(self) -> list[tuple[str, str]]:
        return [("input_folder", self.input_folder)] if self.input_folder else []

    def command_line(self) -> CommandLine:
        """`dld profile MODEL -o REPORT …`: every setting that differs from the CLI's default."""
        args = Args("dld", "profile", self.model, "-o", self.report_path())
        args.option("--provider", self.provider, "cpu").option("--iterations", self.iterations, 100)
        args.option("--warmup", self.warmup, 10).switch("--optimize", self.optimize, True)
        args.switch("--random-inputs", self.random_inputs, None).option("--input-folder", self.input_folder)
        args.option("--batch-size", self.batch_size).option("--device", self.device, 0)
        args.option("--seed", self.seed, 0).option("--threads", self.threads, 0)
        args.switch("--gpu-metrics", self.gpu_metrics, True).flag("--lock-clocks", self.lock_clocks)
        args.option("--sampling-ms", self.sampling_ms, 100.0).switch("--kernel-records", self.kernel_records, True)
        args.flag("--hide-non-compute", self.hide_non_compute)
        if (note := self.copy_note()) is not None:
            args.unsaid(note)
        return args.done()


@dataclass(frozen=True)
class OrtSessionSpec(OrtProfileSpec):
    """An ONNX Runtime session that stays open and answers requests (`kinds.session`): a profile's settings
    (provider, device, threads, optimization, inputs) without its measured series; it writes nothing."""

    KIND: ClassVar[str] = "onnxruntime-session"
    ACTIVITY: ClassVar[str] = "session"
    INTERACTIVE: ClassVar[bool] = True

    def output_paths(self) -> dict[str, str | None]:
        return {}

    def command_line(self) -> CommandLine:
        return CommandLine((), ("an interactive ONNX Runtime session: no dld command runs one",))
