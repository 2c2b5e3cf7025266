"""The dld report: one versioned data shape for ONNX Runtime, TensorRT and imported trtexec profiles.

This module holds the in-memory shape only (plain dataclasses, JSON in and out). Reading and writing files,
validation against the shipped JSON Schema, statistics and exports live beside it, one concept per module.

Times are milliseconds; timeline offsets are relative to the start of the median pass.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from dld_jupyter.report_format.capabilities import Capabilities, derive

FORMAT = "dld-report"
VERSION = 2  # 2: kernel records (`kernels`, `kernel_capture`); version 1 reports still load (no kernels)


@dataclass
class Summary:
    """Network summary (seed 000 "Network Summary")."""

    model: str  # network name (file stem or graph name)
    model_path: str  # path of the profiled ONNX model as given by the user ("" for imports without a model)
    backend: str  # "onnxruntime" | "tensorrt"
    provider: str  # ORT execution provider ("CPUExecutionProvider") or TRT inference device name
    device: str  # human-readable device ("CPU: AMD EPYC ...", "NVIDIA H100 80GB HBM3")
    median_ms: float  # wall time of the median measured pass
    passes: int  # measured passes (warm-up excluded)
    warmup_passes: int = 0
    min_ms: float = 0.0
    p90_ms: float = 0.0
    max_ms: float = 0.0
    mean_ms: float = 0.0
    stable: bool = True  # False when the spread says the passes cannot be trusted
    stability_note: str = ""  # why, in words, when not stable
    median_pass_index: int = 0  # index into passes_ms of the pass whose layers are reported
    optimization: str = ""  # "all" | "disabled" (ORT) or builder optimization level (TRT)
    profiling_overhead_ms: float | None = None  # median with per-node profiling minus median without
    profiled_median_ms: float | None = None  # median pass with per-node profiling on; layers come from it
    median_ci_ms: list[float] | None = None  # 95 % confidence interval of median_ms (order statistics)
    profiled_median_ci_ms: list[float] | None = None
    overhead_within_noise: bool | None = None  # the two medians' intervals overlap
    device_memory_bytes: int | None = None  # TensorRT only: ICudaEngine.device_memory_size
    created: str = ""  # ISO-8601 UTC time the report was made
    settings: dict[str, Any] = field(default_factory=dict)  # the activity spec that produced it


@dataclass
class Layer:
    """One executed layer of the median pass (seed 000 "Network Metrics and Layer Table")."""

    index: int  # inference order
    name: str
    type: str
    onnx_nodes: list[str] = field(default_factory=list)  # ONNX node names this layer comes from
    input_dims: list[list[int | str]] = field(default_factory=list)
    output_dims: list[list[int | str]] = field(default_factory=list)
    precision: str = "N/A"  # precision of the first input tensor ("FP32", "FP16", "INT8", ...)
    provider: str = ""  # ORT execution provider of this layer ("" for TensorRT)
    stream: int = 0
    median_ms: float = 0.0  # time of this layer in the median pass
    mean_ms: float = 0.0  # over all measured passes
    min_ms: float = 0.0
    max_ms: float = 0.0
    ci_ms: list[float] | None = None  # 95 % confidence interval of its median time over the passes
    percent: float = 0.0  # of the sum of layer times in the median pass
    overhead: bool = False  # reformat, copy, NoOp, H2D/D2H: drawn apart on the timeline


@dataclass
class TimelineEvent:
    """One range on the timeline of the median pass."""

    layer: int  # index into Report.layers, -1 for events that are no layer (H2D/D2H copies)
    name: str
    stream: int
    start_ms: float
    duration_ms: float
    overhead: bool = False


@dataclass
class MetricSeries:
    """A GPU metric sampled during the measured passes, aligned to the median pass timeline."""

    name: str  # "sm_utilization", "memory_utilization", "pcie_rx", "pcie_tx", "gpm_sm_activity", ...
    label: str  # "SM Utilization"
    unit: str  # "%", "MB/s"
    times_ms: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)


@dataclass
class KernelRecord:
    """One GPU activity (kernel, memcpy or memset) recorded by CUPTI during a kernel pass (`kernel_capture.series`
    "kernel": passes of their own after the profiled ones; absent in older reports: the profiled passes)."""

    kind: str  # "kernel" | "memcpy" | "memset"
    name: str  # kernel name, C++ names demangled ("void cutlass::Kernel2<...>(...)"), "Memcpy HtoD", "Memset"
    pass_index: int  # kernel pass it ran in (0-based, run order); `kernel_capture.median_pass` is drawn
    start_ms: float  # GPU start, relative to the start of its pass (the timeline's origin for the median pass)
    duration_ms: float
    layer: int = -1  # index into Report.layers of the layer (ONNX Runtime node) that launched it; -1 when none
    stream: int = 0  # CUDA stream id
    launch_ms: float | None = None  # host start of the API call that launched it, same origin as start_ms
    correlation_id: int = 0  # CUPTI correlation id of the launching API call
    grid: list[int] = field(default_factory=list)  # kernels: [x, y, z]
    block: list[int] = field(default_factory=list)  # kernels: [x, y, z]
    registers: int = 0  # kernels: registers per thread
    shared_memory_bytes: int = 0  # kernels: static + dynamic shared memory per block
    bytes: int = 0  # memcpy / memset: bytes moved or set
    copy_kind: str = ""  # memcpy: "HtoD", "DtoH", "DtoD", ...
    tensor_core: bool = False  # kernels: the name says it runs on Tensor Cores


@dataclass
class Report:
    summary: Summary
    passes_ms: list[float] = field(default_factory=list)
    layers: list[Layer] = field(default_factory=list)
    timeline: list[TimelineEvent] = field(default_factory=list)
    gpu_metrics: list[MetricSeries] = field(default_factory=list)
    system: dict[str, Any] = field(default_factory=dict)  # host, OS, CPU, GPU, driver, CUDA, library versions
    removed_nodes: list[str] = field(default_factory=list)  # ONNX nodes optimized away (no layer of its own)
    removed_reasons: dict[str, str] = field(default_factory=dict)  # removed node -> why it has no layer
    kernels: list[KernelRecord] = field(default_factory=list)  # GPU activity of the kernel passes
    kernel_capture: dict[str, Any] = field(default_factory=dict)  # how the kernels were recorded (source, passes)
    format: str = FORMAT
    version: int = VERSION
    capabilities: Capabilities = field(default_factory=Capabilities)  # derived from the summary when not stated

    def __post_init__(self) -> None:
        if not self.capabilities.device_kind:  # built without them, or read from a file written before them
            self.capabilities = derive(self.summary.backend, self.summary.provider)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """Build from already-validated JSON data (see report_format.io for validation with clear errors)."""
        return cls(
            summary=Summary(**data["summary"]),
            passes_ms=list(data.get("passes_ms", [])),
            layers=[Layer(**layer) for layer in data.get("layers", [])],
            timeline=[TimelineEvent(**event) for event in data.get("timeline", [])],
            gpu_metrics=[MetricSeries(**series) for series in data.get("gpu_metrics", [])],
            system=dict(data.get("system", {})),
            removed_nodes=list(data.get("removed_nodes", [])),
            removed_reasons={str(k): str(v) for k, v in dict(data.get("removed_reasons", {})).items()},
            kernels=[KernelRecord(**record) for record in data.get("kernels", [])],
            kernel_capture=dict(data.get("kernel_capture", {})),
            format=data.get("format", FORMAT),
            version=int(data.get("version", VERSION)),
            capabilities=Capabilities(**data.get("capabilities", {})),
        )
