"""NVML's check of other processes on a GPU run's GPU is the scheduler's, for every GPU run it starts (issue 35): a
profile started as `dld.profile` and the CLI start it (not a sweep point) warns of a process already on its GPU and of
one that appears during the run, and its report records both (`system.gpu_exclusivity`); "fail" refuses to measure,
"wait" waits for the GPU; a CPU run is not checked, nor the worker of the run one is part of; a sweep point is
checked the same way under the sweep's `foreign` setting, and its manifest and report keep what was seen.

NVML cannot run here (no GPU): its process lists come from the fake pynvml of tests/activities/test_nvml.py (real
pynvml constants and structs, as the NVML tests use), each process a real `c_nvmlProcessInfo_v3_t` turned into the
object pynvml's own reader returns. The GPU run is a TensorRT profile through the worker with the stand-in runtime
(tests/activities/trt_standin.py), which needs no GPU."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnx
import pynvml
import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.gpu.nvml import Gpu
from dld_jupyter.activities.gpu_watch import ForeignPolicy, GpuWatch, watch_for
from dld_jupyter.activities.kinds.profile import profile_spec
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.scheduler import SCHEDULER, run_activity
from dld_jupyter.report_format.io import load_report
from tests.activities import _models as models
from tests.activities.test_nvml import fake_pynvml
from tests.activities.test_trt_pipeline import STANDIN, _sample_model

FOREIGN, ELSEWHERE, INTRUDER = 4242, 5151, 7777
GiB = 1 << 30


def _nvml(monkeypatch: pytest.MonkeyPatch, processes: Callable[[str], list[int]]) -> None:
    """pynvml whose compute process list of GPU `handle` ("gpu0", "gpu1") is `processes(handle)`, 1 GiB each."""

    def listed(handle: str) -> list[Any]:
        return [pynvml.nvmlStructToFriendlyObject(pynvml.c_nvmlProcessInfo_v3_t(pid=pid, usedGpuMemory=GiB))
                for pid in processes(handle)]

    fake = fake_pynvml()
    fake.nvmlStructToFriendlyObject = pynvml.nvmlStructToFriendlyObject
    fake.nvmlDeviceGetComputeRunningProcesses = listed
    fake.nvmlDeviceGetGraphicsRunningProcesses = lambda handle: []
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)


def _workers() -> list[int]:
    """The PIDs of the workers this process's scheduler has launched and not yet ended: ours, on the GPU."""
    return [run.pid for run in SCHEDULER.running() if run.pid is not None]


def _trt_profile(tmp_path: Path) -> Any:
    return profile_spec(str(_sample_model(tmp_path)), "tensorrt", typing="obey", fp16=True, iterations=3, warmup=1,
                        gpu_metrics=False)


def _warnings(logs: list[Any]) -> list[str]:
    return [line.message for line in logs if line.level == "warning"]


def test_a_profile_outside_a_sweep_warns_of_other_processes_and_its_report_records_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process on the GPU before the run, and one appearing once the worker is there; the other GPU's is not this
    run's business. The check was a sweep point's only: a panel's or `dld.profile`'s run measured beside them
    silently."""
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)

    def on_gpu(handle: str) -> list[int]:
        if handle != "gpu0":
            return [ELSEWHERE]
        workers = _workers()
        return [FOREIGN, *workers, INTRUDER] if workers else [FOREIGN]  # the intruder comes with the run

    _nvml(monkeypatch, on_gpu)
    result = run_activity(_trt_profile(tmp_path), remember=False)
    assert result.ok, (result.error, [line.message for line in result.logs])
    warned = _warnings(result.logs)
    assert ("GPU 0 (GPU-0aaaa-0000) is used by other processes: PIDs [4242]; measuring anyway (foreign='warn'), "
            "the times may be off") in warned
    assert "another process appeared on GPU 0 during the run: PIDs [7777]" in warned
    check = load_report(result.report_path or "").system["gpu_exclusivity"]
    assert check["gpu"] == 0 and check["uuid"] == "GPU-0aaaa-0000" and check["policy"] == "warn"
    assert check["before"] == [FOREIGN] and check["foreign"] == [FOREIGN, INTRUDER] and check["samples"] >= 1


def test_fail_refuses_before_the_worker_and_wait_waits_for_the_gpu(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    _nvml(monkeypatch, lambda handle: [FOREIGN] if handle == "gpu0" else [])
    spec = _trt_profile(tmp_path)
    run = SCHEDULER.submit(Run(spec, remember=False), foreign=ForeignPolicy("fail"))
    result = run.wait(60)
    assert result is not None and result.status.value == "failed" and run.pid is None  # no worker started
    assert result.error == ("GPU 0 (GPU-0aaaa-0000) is used by other processes: PIDs [4242]; free the GPU or pass "
                            "foreign='warn'")
    reads = iter(range(1_000))
    _nvml(monkeypatch, lambda handle: [FOREIGN] if handle == "gpu0" and next(reads) < 2 else [])  # it leaves
    waited = SCHEDULER.submit(Run(spec, remember=False), foreign=ForeignPolicy("wait", 60.0)).wait(120)
    assert waited is not None and waited.ok, waited.error
    assert not [message for message in _warnings(waited.logs) if "GPU 0" in message]  # it had left
    check = load_report(waited.report_path or "").system["gpu_exclusivity"]
    assert check["before"] == [] and check["foreign"] == [] and check["policy"] == "wait"
    _nvml(monkeypatch, lambda handle: [*_workers(), INTRUDER] if handle == "gpu0" and _workers() else [])
    stopped = SCHEDULER.submit(Run(spec, remember=False), foreign=ForeignPolicy("fail")).wait(120)
    assert stopped is not None and stopped.status.value == "failed" and not stopped.artifacts  # nothing it measured
    assert stopped.error == "another process appeared on GPU 0 during the run: PIDs [7777] (foreign='fail')"
    with pytest.raises(SpecError, match="foreign: 'sometimes' is not one of 'warn', 'wait', 'fail'"):
        ForeignPolicy("sometimes")


def test_a_cpu_run_is_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _nvml(monkeypatch, lambda handle: [FOREIGN])
    model = tmp_path / "small.onnx"
    onnx.save(models.resnet_like(blocks=1, channels=4, size=8), str(model))
    result = run_activity(OrtProfileSpec(str(model), iterations=2, warmup=0, threads=1), remember=False)
    assert result.ok, result.error
    assert "gpu_exclusivity" not in load_report(result.report_path or "").system
    assert not any("other processes" in message for message in _warnings(result.logs))


def test_the_run_one_is_part_of_is_not_foreign(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis's own profile runs `within` the analysis, whose worker holds the same GPU."""
    _nvml(monkeypatch, lambda handle: [FOREIGN])
    spec = OrtProfileSpec("m.onnx", provider="cuda")
    inside = watch_for(spec, True, ignore=(FOREIGN,))
    assert isinstance(inside, GpuWatch) and inside.gpu == Gpu(0, 0, "GPU-0aaaa-0000")
    inside.check_before(lambda: False)
    assert inside.before == {} and inside.foreign == set()
    assert watch_for(spec, False) is None  # another machine's GPU: NVML here cannot see it
    assert watch_for(OrtProfileSpec("m.onnx", provider="cuda", device=5), True) is None  # no such GPU here


def test_a_sweep_point_is_checked_by_the_scheduler_under_the_sweeps_policy(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep keeps its `foreign` setting and its manifest's `gpu_check`; the check is the scheduler's."""
    from dld_jupyter.activities.sweep import load_manifest, start_sweep

    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    _nvml(monkeypatch, lambda handle: [FOREIGN] if handle == "gpu0" else [])
    model = _sample_model(tmp_path)
    out = tmp_path / "sweep"
    sweep = start_sweep([str(model)], batch=[32], provider=["tensorrt"], out=str(out), iterations=3, warmup=1,
                        foreign="fail", gpus=[0])
    assert sweep.wait(120)
    entry = load_manifest(out).points[0]
    reason = entry.reason or ""
    assert entry.state == "failed" and "PIDs [4242]" in reason and "free the GPU or pass foreign='warn'" in reason
    assert entry.gpu_check["before"] == [FOREIGN] and entry.gpu_check["policy"] == "fail"
    warned = start_sweep([str(model)], batch=[32], provider=["tensorrt"], out=str(tmp_path / "warned"),
                         iterations=3, warmup=1, gpus=[0])
    assert warned.wait(120)
    done = load_manifest(tmp_path / "warned").points[0]
    assert done.state == "done", done.reason
    assert done.gpu_check["before"] == [FOREIGN] and done.gpu_check["policy"] == "warn"
    report = load_report(tmp_path / "warned" / (done.report or ""))
    assert report.system["gpu_exclusivity"]["before"] == [FOREIGN]  # the report says what else was on its GPU
