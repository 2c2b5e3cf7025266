"""Kernel records come from passes of their own (issue 35): CUPTI costs host time per launch (BERT-base b1 on an
H200: profiled median 6.80 ms without it, 12.25 ms with it), so the profiled passes the layer table comes from must
run without it. The real profile kind and a real ONNX Runtime session run here on the CPU; the recorder is a
stand-in that notes when it was on, because CUPTI cannot run on a machine without an NVIDIA GPU (the same path with
the real recorder: tests/activities/test_kernel_records_gpu.py, gpu-marked)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.activities.gpu.kernel_link import PassWindow
from dld_jupyter.activities.kinds import profile
from dld_jupyter.activities.runtimes import runtime_for
from dld_jupyter.activities.runtimes.onnxruntime import session as session_module
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


class Quiet:
    def progress(self, fraction: float, phase: str) -> None: ...

    def log(self, message: str, level: str = "info") -> None: ...


class StandInRecorder:
    """What the session needs of `KernelRecorder`: when it recorded (perf_counter and wall clock), nothing recorded."""

    def __init__(self) -> None:
        self.activities: list[Any] = []
        self.calls: list[Any] = []
        self.offset_ns, self.version, self.errors = 0, "stand-in", []
        self.started = self.started_ns = 0.0
        self.stopped: float | None = None
        self.stopped_ns = 0

    def start(self) -> None:
        self.started, self.started_ns = time.perf_counter(), time.time_ns()

    def stop(self) -> None:
        if self.stopped is None:
            self.stopped, self.stopped_ns = time.perf_counter(), time.time_ns()


@pytest.fixture
def recorders(monkeypatch: pytest.MonkeyPatch) -> list[StandInRecorder]:
    """Every recorder the ORT session starts (any provider: the stand-in records on the CPU), and the kernel
    windows it links."""
    started: list[StandInRecorder] = []

    def start_recorder(spec: OrtProfileSpec, reporter: Any) -> StandInRecorder | None:
        if not spec.kernel_records:
            return None
        recorder = StandInRecorder()
        recorder.start()
        started.append(recorder)
        return recorder

    monkeypatch.setattr(session_module, "start_recorder", start_recorder)
    return started


def test_profiled_passes_run_before_recording_and_kernel_passes_during_it(
    recorders: list[StandInRecorder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    linked: list[list[PassWindow]] = []
    real_link = session_module.link_recorded

    def watching_link(recorder: Any, windows: list[PassWindow], median: int, **options: Any) -> Any:
        linked.append(windows)
        return real_link(recorder, windows, median, **options)

    monkeypatch.setattr(session_module, "link_recorded", watching_link)
    spec = OrtProfileSpec(model=str(MODEL), iterations=14, warmup=2)
    with runtime_for(spec).session(spec.model, spec, Quiet()) as session:
        measured = profile.measure(session, spec.measurement(), Quiet())
        [recorder] = recorders
        assert recorder.stopped is not None  # stopped by the kind, before anything else runs
        table = session.layers(measured.profiled, measured.median, measured.kernels, measured.kernel_median)
    assert len(measured.profiled) == 14 and len(measured.kernels) == profile.KERNEL_PASSES == 10
    last = measured.profiled[-1]
    assert last.start + last.wall_ms / 1000 < recorder.started  # every profiled pass ran before CUPTI was on
    assert all(recorder.started < p.start and p.start + p.wall_ms / 1000 < recorder.stopped for p in measured.kernels)
    [windows] = linked  # the kernel passes' own node windows, not the profiled passes' (the warm-up left out)
    assert len(windows) == 10
    assert all(recorder.started_ns < w.start_ns <= w.end_ns < recorder.stopped_ns for w in windows)
    assert all(w.windows and w.windows[0].layer >= 0 for w in windows)
    walls = [p.wall_ms for p in measured.kernels]
    assert table.kernel_capture["series"] == "kernel" and table.kernel_capture["passes"] == 10
    assert table.kernel_capture["passes_ms"] == walls
    assert walls[table.kernel_capture["median_pass"]] == sorted(walls)[4]  # the lower median of 10


def test_the_report_says_which_passes_carry_kernel_records(recorders: list[StandInRecorder], tmp_path: Path) -> None:
    spec = OrtProfileSpec(model=str(MODEL), iterations=4, warmup=1, output=str(tmp_path / "r.dld-report.json"))
    report = profile.run_profile(spec, Quiet())
    assert len(report.passes_ms) == 4 and report.summary.passes == 4  # the measured passes only
    capture = report.kernel_capture
    assert capture["series"] == "kernel" and capture["passes"] == 4 and len(capture["passes_ms"]) == 4
    assert 0 <= capture["median_pass"] < 4


def test_no_kernel_passes_when_kernel_records_are_off(recorders: list[StandInRecorder]) -> None:
    spec = OrtProfileSpec(model=str(MODEL), iterations=3, warmup=0, kernel_records=False)
    with runtime_for(spec).session(spec.model, spec, Quiet()) as session:
        measured = profile.measure(session, spec.measurement(), Quiet())
        table = session.layers(measured.profiled, measured.median, measured.kernels, measured.kernel_median)
    assert recorders == [] and measured.kernels == [] and table.kernel_capture == {}


@pytest.mark.parametrize("device", [0, None])
def test_a_gpu_warm_up_lasts_long_enough_for_the_clocks_a_cpu_one_counts_passes(device: int | None) -> None:
    """A GPU idles at low clocks (345 MHz on an H200): a warm-up of a few passes (36 ms for ResNet-18 b32) left a
    sweep's CUDA point measured after a CPU point 3.6 % slower than back to back. The same real session and loop,
    told it runs on a GPU, warms up for at least GPU_WARMUP_MS before the first measured pass."""
    import dataclasses

    spec = OrtProfileSpec(model=str(MODEL), iterations=3, warmup=2)
    measurement = dataclasses.replace(spec.measurement(), device=device, gpu_metrics=False)
    with runtime_for(spec).session(spec.model, spec, Quiet()) as session:
        started = time.perf_counter()
        measured = profile.measure(session, measurement, Quiet())
    waited_ms = (measured.plain[0].start - started) * 1000.0
    if device is None:
        assert waited_ms < profile.GPU_WARMUP_MS / 2
    else:
        assert waited_ms >= profile.GPU_WARMUP_MS
        second_warm_up_ms = (measured.profiled[0].start - measured.plain[-1].start) * 1000.0
        assert second_warm_up_ms >= profile.GPU_WARMUP_MS
