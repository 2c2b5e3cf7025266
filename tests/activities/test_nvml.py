"""NVML metrics: clean "unavailable" here (no GPU), and the sampling logic against a fake pynvml."""

from __future__ import annotations

import sys
import time
import types
from typing import Any

import pynvml
import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu.clocks import locked_clocks
from dld_jupyter.activities.gpu.nvml import MetricsSampler, device_info, now_us


def _has_gpu() -> bool:
    try:
        pynvml.nvmlInit()
    except Exception:
        return False
    pynvml.nvmlShutdown()
    return True


@pytest.mark.skipif(_has_gpu(), reason="checks the no-GPU path")
def test_without_a_gpu_everything_says_unavailable() -> None:
    assert device_info(0)["gpu"].startswith("unavailable: ")
    with pytest.raises(UnavailableError, match=r"^unavailable: NVML could not start"):
        MetricsSampler(0).start()
    with pytest.raises(UnavailableError), locked_clocks(0, print):
        pass


def fake_pynvml(gpm: bool = True) -> types.SimpleNamespace:
    """Real constants and ctypes structs from pynvml, fake functions recording their calls."""
    calls: list[str] = []
    start = now_us()

    def samples(handle: Any, kind: int, since: int) -> tuple[int, list[Any]]:
        values = [
            pynvml.c_nvmlSample_t(now_us() - 1000 * (k + 1), pynvml.c_nvmlValue_t(uiVal=50 + kind)) for k in range(3)
        ]
        values.append(pynvml.c_nvmlSample_t(start - 10_000_000, pynvml.c_nvmlValue_t(uiVal=1)))  # before: dropped
        return pynvml.NVML_VALUE_TYPE_UNSIGNED_INT, values

    def metrics_get(request: Any) -> Any:
        for i in range(request.numMetrics):
            request.metrics[i].value = 10.0 + request.metrics[i].metricId
            request.metrics[i].nvmlReturn = pynvml.NVML_SUCCESS
        return request

    names = [n for n in dir(pynvml) if n.startswith(("NVML_", "c_nvml"))]
    fake = types.SimpleNamespace(**{n: getattr(pynvml, n) for n in names}, calls=calls)
    fake.nvmlInit = lambda: calls.append("init")
    fake.nvmlShutdown = lambda: calls.append("shutdown")
    fake.nvmlDeviceGetHandleByIndex = lambda i: f"gpu{i}"
    fake.nvmlDeviceGetCount = lambda: 2
    fake.nvmlDeviceGetUUID = lambda h: f"GPU-{h[3:]}aaaa-0000"
    fake.nvmlDeviceGetName = lambda h: "NVIDIA H100 80GB HBM3"
    fake.nvmlSystemGetDriverVersion = lambda: "580.65"
    fake.nvmlSystemGetCudaDriverVersion = lambda: 13000
    fake.nvmlDeviceGetSamples = samples
    fake.nvmlGpmQueryDeviceSupport = lambda h: types.SimpleNamespace(isSupportedDevice=int(gpm))
    fake.nvmlGpmSampleAlloc = lambda: pynvml.c_nvmlGpmSample_t()
    fake.nvmlGpmSampleGet = lambda h, s: s
    fake.nvmlGpmSampleFree = lambda s: calls.append("free")
    fake.nvmlGpmMetricsGet = metrics_get
    fake.nvmlDeviceGetPcieThroughput = lambda h, counter: 2048
    fake.nvmlDeviceGetDefaultApplicationsClock = lambda h, kind: 1755
    fake.nvmlDeviceGetClockInfo = lambda h, kind: 1365
    fake.nvmlDeviceSetGpuLockedClocks = lambda h, lo, hi: calls.append(f"lock {lo} {hi}")
    fake.nvmlDeviceResetGpuLockedClocks = lambda h: calls.append("reset")
    return fake


def test_device_info_for_the_system_section(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    assert device_info(0) == {"gpu": "NVIDIA H100 80GB HBM3", "gpu_index": 0, "driver": "580.65", "cuda_driver": "13.0"}


def test_driver_samples_and_gpm_metrics_become_aligned_series(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    sampler = MetricsSampler(0, interval_ms=100)
    sampler.start()
    origin = now_us()
    time.sleep(0.45)
    sampler.stop()
    series = {s.name: s for s in sampler.series(origin)}
    assert {
        "sm_utilization",
        "memory_utilization",
        "gpm_sm_activity",
        "gpm_tensor_activity",
        "gpm_dram_bandwidth",
        "pcie_tx",
        "pcie_rx",
    } <= set(series)
    assert series["sm_utilization"].values == [51.0] * 3  # the sample from before start() is dropped
    assert series["gpm_sm_activity"].values[0] == 10.0 + pynvml.NVML_GPM_METRIC_SM_UTIL
    assert len(series["gpm_sm_activity"].values) >= 3 and series["pcie_rx"].unit == "MiB/s"
    assert all(-1000 < t < 1000 for s in series.values() for t in s.times_ms)  # ms around the origin
    assert fake.calls.count("free") == 2 and fake.calls[-1] == "shutdown" and not sampler.notes


def test_without_gpm_pcie_falls_back_to_throughput_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml(gpm=False))
    sampler = MetricsSampler(0)
    sampler.start()
    time.sleep(0.1)
    sampler.stop()
    series = {s.name: s for s in sampler.series(now_us())}
    assert series["pcie_tx"].values[0] == 2.0 and "gpm_sm_activity" not in series
    assert any(note.startswith("gpm: unavailable") for note in sampler.notes)


def test_locked_clocks_are_always_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    with pytest.raises(RuntimeError, match="inference failed"), locked_clocks(0, lambda message: None) as mhz:
        assert mhz == 1365
        raise RuntimeError("inference failed")
    tdp = pynvml.NVML_CLOCK_LIMIT_ID_TDP
    assert fake.calls == ["init", f"lock {tdp} {tdp}", "reset", "shutdown"]


def test_without_the_tdp_limit_clocks_lock_to_the_default_applications_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_pynvml()

    def set_locked(handle: Any, low: int, high: int) -> None:
        if low == pynvml.NVML_CLOCK_LIMIT_ID_TDP:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        fake.calls.append(f"lock {low} {high}")

    fake.nvmlDeviceSetGpuLockedClocks = set_locked
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    with locked_clocks(0, lambda message: None):
        pass
    assert fake.calls == ["init", "lock 1755 1755", "reset", "shutdown"]


def test_nan_gpm_values_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_pynvml()

    def nan_metrics(request: Any) -> Any:
        for i in range(request.numMetrics):
            request.metrics[i].value = float("nan")
            request.metrics[i].nvmlReturn = pynvml.NVML_SUCCESS
        return request

    fake.nvmlGpmMetricsGet = nan_metrics
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    sampler = MetricsSampler(0)
    sampler.start()
    time.sleep(0.15)
    sampler.stop()
    assert not [s for s in sampler.series(now_us()) if s.name.startswith("gpm_")]


def test_a_short_last_gpm_interval_is_not_recorded_and_short_series_are_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    """GPM needs >= 100 ms between snapshots and answers 0 below that: every series used to end with a false 0."""
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    sampler = MetricsSampler(0, interval_ms=100)
    assert sampler.interval_s >= 0.12  # 20 ms of margin: the driver's clock and ours need not agree
    sampler.start()
    time.sleep(0.15)  # one full interval, then stop() 30 ms into the next
    sampler.stop()
    gpm = next(s for s in sampler.series(now_us()) if s.name == "gpm_sm_activity")
    assert len(gpm.values) == 1
    assert any(note.startswith("gpm_sm_activity: only 1 sample(s)") for note in sampler.notes)
