"""GPU metrics and device facts through NVML (pynvml, imported lazily).

Fine-grained data comes from the driver, not from a Python polling loop (a 10 ms polling thread saw 5 samples in a
150 ms CUDA run): SM and memory utilization from the driver's sample buffers (`nvmlDeviceGetSamples`, read once
after the passes), and GPM metrics (SM activity/occupancy, tensor activity, DRAM bandwidth, PCIe) computed by NVML
between two GPM snapshots, so every interval is covered even when snapshots are sparse. GPM needs >= 100 ms
between snapshots; without GPM, PCIe throughput falls back to `nvmlDeviceGetPcieThroughput` (a 20 ms window).
Everything degrades to "unavailable: <reason>" notes: no GPU, no driver, no pynvml, no GPM.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu import visible
from dld_jupyter.activities.optional import import_optional
from dld_jupyter.report_format.model import MetricSeries

GPM_MIN_INTERVAL_MS = 100.0
# GPM answers every metric 0 for snapshots under 100 ms apart by the driver's clock, which need not agree with ours
# to the millisecond: a BERT-base batch-32 run on an H100 ended in one such all-zero interval while ours said >= 100.
GPM_MARGIN_MS = 20.0
MIN_USEFUL_SAMPLES = 3

# (series name, label, unit, NVML sampling type constant name)
DRIVER_SAMPLES = [
    ("sm_utilization", "SM Utilization", "%", "NVML_GPU_UTILIZATION_SAMPLES"),
    ("memory_utilization", "VRAM Utilization", "%", "NVML_MEMORY_UTILIZATION_SAMPLES"),
]
# (series name, label, unit, GPM metric constant name)
GPM_METRICS = [
    ("gpm_sm_activity", "GPM SM Activity", "%", "NVML_GPM_METRIC_SM_UTIL"),
    ("gpm_sm_occupancy", "GPM SM Occupancy", "%", "NVML_GPM_METRIC_SM_OCCUPANCY"),
    ("gpm_tensor_activity", "GPM Tensor Core Activity", "%", "NVML_GPM_METRIC_ANY_TENSOR_UTIL"),
    ("gpm_dram_bandwidth", "GPM DRAM Bandwidth", "%", "NVML_GPM_METRIC_DRAM_BW_UTIL"),
    ("pcie_tx", "PCIe TX", "MiB/s", "NVML_GPM_METRIC_PCIE_TX_PER_SEC"),
    ("pcie_rx", "PCIe RX", "MiB/s", "NVML_GPM_METRIC_PCIE_RX_PER_SEC"),
]


def load_pynvml() -> ModuleType:
    return import_optional("pynvml", "pynvml (nvidia-ml-py)")


def now_us() -> int:
    """NVML sample timestamps are CPU wall-clock microseconds since the epoch."""
    return time.time_ns() // 1000


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Nvml:
    """`with Nvml() as nv:` initializes NVML and always shuts it down; errors become UnavailableError."""

    def __init__(self) -> None:
        self.lib = load_pynvml()

    def __enter__(self) -> Nvml:
        try:
            self.lib.nvmlInit()
        except Exception as error:  # NVMLError_LibraryNotFound, _DriverNotLoaded, ...
            raise UnavailableError(f"NVML could not start ({error})") from error
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):  # shutting down must never hide the run's own outcome
            self.lib.nvmlShutdown()

    def handle(self, index: int) -> Any:
        """The GPU of NVML index `index` (every GPU of the host); a CUDA index goes through `nvml_index` first."""
        try:
            return self.lib.nvmlDeviceGetHandleByIndex(index)
        except Exception as error:
            raise UnavailableError(f"no GPU with index {index} ({error})") from error

    def uuids(self) -> list[str]:
        """Every GPU's UUID, in NVML order."""
        count = int(self.lib.nvmlDeviceGetCount())
        return [_text(self.lib.nvmlDeviceGetUUID(self.handle(i))) for i in range(count)]

    def nvml_index(self, cuda_index: int) -> int:
        """The NVML index of CUDA device `cuda_index`, as `CUDA_VISIBLE_DEVICES` maps it (`gpu.visible`)."""
        return visible.nvml_index(cuda_index, visible.listing(), self.uuids())


def nvml_index(cuda_index: int) -> int:
    """The NVML index of CUDA device `cuda_index`; UnavailableError without NVML or when it is not visible."""
    with Nvml() as nv:
        return nv.nvml_index(cuda_index)


@dataclass(frozen=True)
class Gpu:
    """One GPU this process may use: CUDA's index for it, NVML's, and its UUID (the same on every process)."""

    cuda_index: int  # the index CUDA (and ONNX Runtime's device_id) uses in this process
    nvml_index: int
    uuid: str


def visible_gpus() -> list[Gpu]:
    """The GPUs this process may use, in CUDA order (`CUDA_VISIBLE_DEVICES` as CUDA reads it); [] without NVML."""
    try:
        with Nvml() as nv:
            uuids = nv.uuids()
    except UnavailableError:
        return []
    order = visible.cuda_order(visible.listing(), uuids)
    return [Gpu(cuda, index, uuids[index]) for cuda, index in enumerate(order)]


def device_problem(cuda_index: int) -> str | None:
    """Why this process cannot use CUDA device `cuda_index` ("GPU 1 requested, this host has 1 GPU (0)"), or None
    (visible, or no NVML to tell: the runtime then says what it found)."""
    try:
        with Nvml() as nv:
            uuids = nv.uuids()
    except UnavailableError:
        return None
    try:
        visible.nvml_index(cuda_index, visible.listing(), uuids)
    except UnavailableError as error:
        return str(error).removeprefix("unavailable: ")
    return None


def device_info(index: int) -> dict[str, Any]:
    """GPU name, driver and CUDA driver version of CUDA device `index` for the system section ("gpu_index" is its
    NVML index); {"gpu": "unavailable: ..."} otherwise."""
    try:
        with Nvml() as nv:
            index = nv.nvml_index(index)
            handle = nv.handle(index)
            cuda = int(nv.lib.nvmlSystemGetCudaDriverVersion())
            return {
                "gpu": _text(nv.lib.nvmlDeviceGetName(handle)),
                "gpu_index": index,
                "driver": _text(nv.lib.nvmlSystemGetDriverVersion()),
                "cuda_driver": f"{cuda // 1000}.{cuda % 1000 // 10}",
            }
    except UnavailableError as error:
        return {"gpu": str(error)}


def _sample_value(sample: Any, value_type: int) -> float:
    value = sample.sampleValue
    fields = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal", 6: "usVal"}
    return float(getattr(value, fields.get(value_type, "uiVal")))


@dataclass
class RawSeries:
    name: str
    label: str
    unit: str
    times_us: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    def aligned(self, origin_us: float) -> MetricSeries:
        times = [(t - origin_us) / 1000.0 for t in self.times_us]
        return MetricSeries(self.name, self.label, self.unit, times, list(self.values))


class MetricsSampler:
    """Collects metrics between start() and stop(); series(origin_us) aligns them to the median pass start."""

    def __init__(self, index: int, interval_ms: float = GPM_MIN_INTERVAL_MS + GPM_MARGIN_MS) -> None:
        self.index = index
        self.interval_s = max(interval_ms, GPM_MIN_INTERVAL_MS + GPM_MARGIN_MS) / 1000.0
        self.notes: list[str] = []  # "<metric>: unavailable: <reason>"
        self._raw: dict[str, RawSeries] = {}
        self._nvml: Nvml | None = None
        self._handle: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_us = 0

    def start(self) -> None:
        nvml = Nvml().__enter__()
        try:  # `index` is a CUDA index: the handle is the same GPU's, whatever CUDA_VISIBLE_DEVICES lists
            self._nvml, self._handle = nvml, nvml.handle(nvml.nvml_index(self.index))
        except UnavailableError:
            nvml.__exit__()
            raise
        self._start_us = now_us()
        if self._gpm_supported():
            self._thread = threading.Thread(target=self._gpm_loop, name="dld-gpm", daemon=True)
        else:
            self._thread = threading.Thread(target=self._pcie_loop, name="dld-pcie", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._nvml is None:
            return
        try:
            self._stop.set()
            if self._thread is not None:
                self._thread.join(timeout=5.0)
            self._read_driver_samples(now_us())
            self._note_short_series()
        finally:
            self._nvml.__exit__(None, None, None)
            self._nvml = None

    def _note_short_series(self) -> None:
        """A series of one or two samples cannot show how the passes used the GPU: say so, with the fix."""
        for raw in self._raw.values():
            if 0 < len(raw.values) < MIN_USEFUL_SAMPLES:
                self.notes.append(
                    f"{raw.name}: only {len(raw.values)} sample(s) over the run (one per "
                    f"{self.interval_s * 1000:.0f} ms): profile more passes to see it change"
                )

    def series(self, origin_us: float) -> list[MetricSeries]:
        return [raw.aligned(origin_us) for raw in self._raw.values() if raw.values]

    def _series(self, name: str, label: str, unit: str) -> RawSeries:
        return self._raw.setdefault(name, RawSeries(name, label, unit))

    def _gpm_supported(self) -> bool:
        assert self._nvml is not None
        try:
            support = self._nvml.lib.nvmlGpmQueryDeviceSupport(self._handle)
        except Exception as error:
            self.notes.append(f"gpm: unavailable: {error}")
            return False
        if not support.isSupportedDevice:
            self.notes.append("gpm: unavailable: nvmlGpmQueryDeviceSupport says this device is not supported")
            return False
        return True

    def _read_driver_samples(self, stop_us: int) -> None:
        assert self._nvml is not None
        lib = self._nvml.lib
        for name, label, unit, constant in DRIVER_SAMPLES:
            try:
                value_type, samples = lib.nvmlDeviceGetSamples(self._handle, getattr(lib, constant), self._start_us)
            except Exception as error:  # NVML_ERROR_NOT_FOUND: no sample in the window
                self.notes.append(f"{name}: unavailable: {error}")
                continue
            series = self._series(name, label, unit)
            for sample in sorted(samples, key=lambda s: int(s.timeStamp)):
                if self._start_us <= int(sample.timeStamp) <= stop_us:
                    series.times_us.append(float(sample.timeStamp))
                    series.values.append(_sample_value(sample, int(value_type)))

    def _gpm_loop(self) -> None:
        assert self._nvml is not None
        lib = self._nvml.lib
        samples: list[Any] = []
        try:
            samples = [lib.nvmlGpmSampleAlloc(), lib.nvmlGpmSampleAlloc()]
            previous, current = samples
            lib.nvmlGpmSampleGet(self._handle, previous)
            previous_us = now_us()
            while True:
                stopping = self._stop.wait(self.interval_s)
                if stopping and now_us() - previous_us < (GPM_MIN_INTERVAL_MS + GPM_MARGIN_MS) * 1000:
                    break  # GPM answers 0 for intervals under 100 ms: no fabricated last sample
                lib.nvmlGpmSampleGet(self._handle, current)
                current_us = now_us()
                self._record_gpm(lib, previous, current, (previous_us + current_us) / 2.0)
                previous, current, previous_us = current, previous, current_us
                if stopping:
                    break
        except Exception as error:
            self.notes.append(f"gpm: unavailable: {error}")
        finally:
            for sample in samples:
                with contextlib.suppress(Exception):
                    lib.nvmlGpmSampleFree(sample)

    def _record_gpm(self, lib: Any, first: Any, second: Any, at_us: float) -> None:
        request = lib.c_nvmlGpmMetricsGet_t()
        request.version = lib.NVML_GPM_METRICS_GET_VERSION
        request.numMetrics = len(GPM_METRICS)
        request.sample1, request.sample2 = first, second
        for i, (*_, constant) in enumerate(GPM_METRICS):
            request.metrics[i].metricId = getattr(lib, constant)
        lib.nvmlGpmMetricsGet(request)
        for i, (name, label, unit, _) in enumerate(GPM_METRICS):
            metric = request.metrics[i]
            if int(metric.nvmlReturn) == lib.NVML_SUCCESS and math.isfinite(metric.value):  # NaN seen on H200
                series = self._series(name, label, unit)
                series.times_us.append(at_us)
                series.values.append(float(metric.value))

    def _pcie_loop(self) -> None:
        assert self._nvml is not None
        lib = self._nvml.lib
        try:
            while not self._stop.is_set():
                for name, label, counter in (
                    ("pcie_tx", "PCIe TX", "NVML_PCIE_UTIL_TX_BYTES"),
                    ("pcie_rx", "PCIe RX", "NVML_PCIE_UTIL_RX_BYTES"),
                ):
                    kb_per_s = lib.nvmlDeviceGetPcieThroughput(self._handle, getattr(lib, counter))
                    series = self._series(name, label, "MiB/s")
                    series.times_us.append(float(now_us()))
                    series.values.append(float(kb_per_s) / 1024.0)
                self._stop.wait(0.02)  # each reading already covers a 20 ms window
        except Exception as error:
            self.notes.append(f"pcie: unavailable: {error}")
