"""A report's GPU activity records (kernels, memory copies and sets) as the rows every dashboard panel reads.

Why: the report format stores CUPTI records (`KernelRecord`, docs/report-format.md); the dashboard reads them through
this one adapter, so a panel never depends on how they are stored, and a report without them says why (`absence`)
instead of showing zeros. Tensor Core use is the record's own flag, set by the recorder from the kernel name
(activities/gpu/tensor_core_names.py, checked against GPM tensor activity).
"""

from __future__ import annotations

from dataclasses import dataclass

from dld_jupyter.report_format.model import Report

KERNEL, MEMORY = "kernel", "memory"  # what a record occupies on the GPU: compute, or a copy/set of memory

# Op types whose work can run on Tensor Cores (matrix products and convolutions, their fused and quantized forms).
TC_ELIGIBLE = frozenset({
    "Conv", "ConvTranspose", "FusedConv", "QLinearConv", "ConvInteger", "MatMul", "FusedMatMul", "MatMulInteger",
    "QLinearMatMul", "MatMulNBits", "Gemm", "FusedGemm", "Attention", "MultiHeadAttention", "GroupQueryAttention",
    "Einsum", "LSTM", "GRU", "RNN", "CaskConvolution", "CaskGemmConvolution", "CaskDeconvolution", "Convolution",
    "Deconvolution", "MatrixMultiply", "FullyConnected", "Myelin", "gemm",
})


@dataclass(frozen=True)
class Kernel:
    """One GPU activity of the report, times on the median-pass timeline (ms)."""

    name: str
    kind: str  # KERNEL or MEMORY
    layer: int  # position in report.layers of the op that launched it, -1 when none
    start_ms: float
    duration_ms: float
    tensor_core: bool
    launch_ms: float | None = None  # host time of the launch (runtime API call), when recorded
    pass_index: int | None = None  # measured pass it ran in (None: the median pass)
    device: int = 0
    stream: int = 0
    grid: str = ""
    block: str = ""

    @property
    def end_ms(self) -> float:
        return self.start_ms + self.duration_ms


def _dims(value: list[int]) -> str:
    return "x".join(map(str, value))


def kernels_of(report: Report) -> list[Kernel]:
    """Every recorded GPU activity of `report` (format version 2 `kernels`), in pass and start order ([] when it
    holds none)."""
    rows = [
        Kernel(name=r.name, kind=KERNEL if r.kind == "kernel" else MEMORY, layer=r.layer, start_ms=r.start_ms,
               duration_ms=r.duration_ms, tensor_core=r.tensor_core and r.kind == "kernel", launch_ms=r.launch_ms,
               pass_index=r.pass_index, stream=r.stream, grid=_dims(r.grid), block=_dims(r.block))
        for r in report.kernels
    ]
    return sorted(rows, key=lambda k: (k.pass_index if k.pass_index is not None else -1, k.start_ms))


def median_pass(report: Report) -> int:
    """The pass whose kernels the timeline shows: the profiled median pass, else the measured median pass."""
    median = report.kernel_capture.get("median_pass")
    return int(median) if isinstance(median, int) else report.summary.median_pass_index


def kernel_pass_ms(report: Report, index: int) -> float:
    """Wall time of the pass whose kernels are `pass_index` `index`: its own (`kernel_capture.passes_ms`, kernel
    passes of their own), else the profiled median pass (older reports recorded the profiled passes, whose wall times
    are not stored one by one)."""
    own = report.kernel_capture.get("passes_ms")
    if isinstance(own, list) and 0 <= index < len(own) and isinstance(own[index], (int, float)):
        return float(own[index])
    return report.summary.profiled_median_ms or report.summary.median_ms


def ran_on_gpu(report: Report) -> bool:
    """The run used a GPU: a CUDA/TensorRT provider or a TensorRT engine."""
    return report.capabilities.on_gpu


def absence(report: Report) -> str:
    """Why kernel panels are empty for `report` ("" when it holds kernel records)."""
    if report.kernels:
        return ""
    if not ran_on_gpu(report):
        return (f"this run used {report.summary.provider or 'the CPU'}: no GPU ran, so there are no kernels, "
                "Tensor Core use or GPU idle time to show")
    return ("this report holds no kernel records: it was made without CUPTI kernel recording (older release, an "
            "import, or cupti-python missing on the target); profile again on the GPU with kernel records to see "
            "kernels, Tensor Core use and idle gaps")
